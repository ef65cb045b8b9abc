/// Why a command was refused (`ok: false`), in words for the harness's log: a malformed
/// request, an unknown command or device, or a missing field.
public struct AdapterCommandError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
