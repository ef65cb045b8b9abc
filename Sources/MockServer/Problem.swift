import HTTP
import JSON
import ReleaseControl

/// An error answer as `application/problem+json` (RFC 9457): what went wrong, for a person,
/// and for bad bodies which fields, as JSON pointers, so a client can show them in place.
///
/// ```swift
/// let problem = Problem(status: 422, detail: "the rule breaks a constraint",
///                       errors: [.init(pointer: "/below", message: "not a version: \"two\"")])
/// let response = problem.response   // 422, Content-Type: application/problem+json
/// ```
public struct Problem: Error, Sendable, Equatable {
    /// One bad field: `pointer` is a JSON pointer into the request body (or `parameter` a query name).
    public struct FieldError: Sendable, Equatable {
        public var pointer: String?
        public var parameter: String?
        public var message: String

        public init(pointer: String? = nil, parameter: String? = nil, message: String) {
            self.pointer = pointer
            self.parameter = parameter
            self.message = message
        }
    }

    public var status: Int
    public var title: String
    public var detail: String
    public var errors: [FieldError]
    /// Extra response headers (`Allow` on 405, `WWW-Authenticate` on 401).
    public var headers: HTTPHeaders

    public init(status: Int, title: String? = nil, detail: String, errors: [FieldError] = [],
                headers: HTTPHeaders = HTTPHeaders()) {
        self.status = status
        self.title = title ?? HTTPResponse.reasonPhrase(status)
        self.detail = detail
        self.errors = errors
        self.headers = headers
    }

    /// `about:blank` when the title is the status's own phrase (RFC 9457 §4.2.1); otherwise a
    /// URN naming the kind of problem, so clients can tell "Unknown project" from "Unknown rule".
    public var type: String {
        if title == HTTPResponse.reasonPhrase(status) { return "about:blank" }
        var slug = ""
        for c in title.lowercased().unicodeScalars {
            if (c >= "a" && c <= "z") || (c >= "0" && c <= "9") { slug.unicodeScalars.append(c) } else if !slug.hasSuffix("-") { slug += "-" }
        }
        while slug.hasSuffix("-") { slug.removeLast() }
        return "urn:lerix-mock:problem:" + slug
    }

    public var json: JSON {
        var pairs: [(String, JSON)] = [
            ("type", .string(type)), ("title", .string(title)), ("status", .number(Double(status))),
            ("detail", .string(detail)),
        ]
        if !errors.isEmpty {
            pairs.append(("errors", .array(errors.map { error in
                var item: [(String, JSON)] = []
                if let pointer = error.pointer { item.append(("pointer", .string(pointer))) }
                if let parameter = error.parameter { item.append(("parameter", .string(parameter))) }
                item.append(("message", .string(error.message)))
                return .object(item)
            })))
        }
        return .object(pairs)
    }

    public var response: HTTPResponse {
        var response = HTTPResponse(status: status, headers: headers, body: json.prettySerialized())
        response.headers.set("Content-Type", "application/problem+json")
        return response
    }
}

extension Problem {
    static func notFound(_ detail: String) -> Problem { Problem(status: 404, detail: detail) }

    static func unknownProject(_ key: String) -> Problem {
        Problem(status: 404, title: "Unknown project",
                detail: "there is no project \"\(key)\"; create it with PUT /admin/projects/\(key)")
    }

    /// A body that is not JSON: 400 with the parser's position.
    static func malformedJSON(_ error: JSONSyntaxError) -> Problem {
        Problem(status: 400, title: "Malformed JSON", detail: "the body is not JSON: \(error.description)",
                errors: [FieldError(pointer: "", message: error.description)])
    }

    /// One field problem: 400 when the JSON type is wrong, 422 when the value breaks a rule.
    static func field(_ pointer: String, _ message: String, typeError: Bool) -> Problem {
        Problem(status: typeError ? 400 : 422,
                title: typeError ? "Wrong type in body" : "Invalid value",
                detail: "\(pointer.isEmpty ? "the body" : pointer): \(message)",
                errors: [FieldError(pointer: pointer, message: message)])
    }

    static func storageUnavailable(_ error: any Error) -> Problem {
        Problem(status: 503, title: "State store unavailable",
                detail: "the write was not stored and nothing changed: \(error)")
    }
}

extension Problem {
    /// Every problem of a body at once: 400 when any is a type error, else 422.
    init(_ failure: ValidationFailure, detail: String? = nil) {
        let status = failure.status
        self.init(status: status,
                  title: status == 400 ? "Malformed body" : "Invalid body",
                  detail: detail ?? failure.description,
                  errors: failure.problems.map { FieldError(pointer: $0.pointer, message: $0.message) })
    }
}
