import HTTP
import JSON

/// The Swift SDK's adapter host, in this process. Placeholder until the Adapter target lands:
/// it refuses with a message naming what is missing.
enum InProcessAdapter {
    static func make(responder: (any Responder)? = nil) throws -> any AdapterConnection {
        throw AdapterFailure("the in-process Swift SDK adapter is not built yet; use --server URL --adapter CMD")
    }
}
