import HTTP
import JSON
import ReleaseControl

extension MockServer {
    func pushGatewaysJSON(_ urls: PushGatewayURLs) -> JSON {
        .object([("apns", urls.apns.map(JSON.string) ?? .null), ("fcm", urls.fcm.map(JSON.string) ?? .null)])
    }

    /// The sink when it can be redirected, else the 409 that says how this server was started.
    func redirectableSink() throws(Problem) -> any RedirectablePushSink {
        guard let sink = options.pushSink as? any RedirectablePushSink else {
            throw Problem(
                status: 409,
                title: "Push gateways are fixed",
                detail: "this server's push sink cannot be redirected (it was built without one that can)"
            )
        }
        return sink
    }

    func getPushGateways() throws(Problem) -> HTTPResponse {
        jsonResponse(200, pushGatewaysJSON(try redirectableSink().gateways))
    }

    /// `{"apns": URL|null, "fcm": URL|null}`: both keys, so a body read with `GET` goes back as it is
    /// and a left-out key is not mistaken for "keep". Only loopback gateways: an admin call over plain
    /// HTTP must not be able to send a server's pushes (and its provider credentials) anywhere else.
    func putPushGateways(_ call: Call) throws(Problem) -> HTTPResponse {
        let sink = try redirectableSink()
        let body = try parseBody(call)
        guard let object = body.objectValue else {
            throw Problem.field(
                "",
                "expected {\"apns\": \"http://127.0.0.1:PORT\" | null, \"fcm\": … | null}, found \(body.typeName)",
                .wrongType
            )
        }
        var problems = BodyFields(name: "the push gateways", writable: ["apns", "fcm"]).problems(in: object)
        var urls = PushGatewayURLs()
        for key in ["apns", "fcm"] {
            switch object[key] {
            case nil:
                problems.append(
                    FieldProblem(
                        pointer: "/" + key,
                        message: "required: a gateway URL, or null for none",
                        kind: .missingField
                    )
                )
            case .null?:
                break
            case .string(let text)?:
                if key == "apns" { urls.apns = text } else { urls.fcm = text }
            case let other?:
                problems.append(
                    FieldProblem(
                        pointer: "/" + key,
                        message: "expected a URL or null, found \(other.typeName)",
                        kind: .wrongType
                    )
                )
            }
        }
        if !problems.isEmpty { throw Problem(ValidationFailure(problems: problems)) }
        do {
            try sink.redirect(to: urls)
        } catch {
            throw Problem.field("/" + error.field, error.message, .invalidValue)
        }
        options.log("pushes now go to APNs \(urls.apns ?? "none"), FCM \(urls.fcm ?? "none")")
        return jsonResponse(200, pushGatewaysJSON(sink.gateways))
    }
}
