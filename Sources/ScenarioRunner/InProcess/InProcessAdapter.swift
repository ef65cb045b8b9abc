import Adapter
import AdapterProtocol
import Clock
import HTTP
import JSON

/// The Swift SDK's ``AdapterHost`` in this process, behind ``AdapterConnection``. With a
/// responder (the in-process MockServer), devices reach it through ``ResponderTransport`` and
/// keep their timers on the server's manual clock (one heap, so the adapter's `advance` moves
/// the server's time too); without one, over real sockets to the `base_url` the runner gives them.
final class InProcessAdapter: AdapterConnection {
    let host: AdapterHost
    private var nextId = 1

    init(host: AdapterHost) { self.host = host }

    static func make(
        responder: (any Responder)? = nil,
        clock: ManualScheduler? = nil,
        baseURL: String = "http://lerix.test",
        client: InProcessEnvironment.Client? = nil
    ) throws -> any AdapterConnection {
        if let responder {
            var options = AdapterHost.Options()
            options.disksInMemory = true  // the world's storage folder goes with the scenario
            let network = ResponderTransport(responder: responder, baseURL: baseURL)
            return InProcessAdapter(
                host: AdapterHost(
                    network: client.map { $0(network) } ?? network,
                    options: options,
                    scheduler: clock
                )
            )
        }
        return InProcessAdapter(host: AdapterHost())
    }

    func send(_ command: JSON) throws(AdapterFailure) -> JSON {
        var object = command.objectValue ?? JSONObject()
        object["id"] = .number(Double(nextId))
        nextId += 1
        return host.handle(.object(object))
    }

    /// The typed request straight to the host: a fleet's per-device commands are neither
    /// encoded nor parsed. The answer has the shape the JSON path gives (`id`, `ok`, fields).
    func command(_ request: AdapterRequest) throws(AdapterFailure) -> JSON {
        let id = nextId
        nextId += 1
        switch host.handle(request) {
        case .success(let fields):
            // One allocation, kept as the object's storage: a `state` has 17 fields, all distinct.
            var pairs: [(key: String, value: JSON)] = []
            pairs.reserveCapacity(2 + fields.count)
            pairs.append((key: "id", value: .number(Double(id))))
            pairs.append((key: "ok", value: true))
            for (key, value) in fields { pairs.append((key: key, value: value)) }
            return .object(JSONObject(uniqueKeysWithValues: pairs))
        case .failure(let error):
            throw Self.refusal(of: request, error.message)
        }
    }

    /// The host's typed state: no field is formatted until an expectation reads it.
    func deviceState(_ device: String) throws(AdapterFailure) -> DeviceStateReading {
        switch host.state(of: device) {
        case .success(let state): return .typed(state)
        case .failure(let error): throw Self.refusal(of: .state(device: device), error.message)
        }
    }

    func close() {}
}
