import Clock
import HTTP
import JSON
import ReleaseControl
import Synchronization

/// One device class's check answer in wire form, made once per ``Evaluation`` and served until
/// ``isValid(at:)`` turns false: the ETag, the `Cache-Control` value and the body bytes around
/// the server time, so serving is a copy plus the time. A class: the cache hands out one
/// reference per hit instead of copying every field.
///
/// The body is the contract's, fields in its order:
/// `project, server_time, lifetime, required_update, optional_update, maintenance, sdk_switch`;
/// absent `store_url`/`message` are written as `null`.
///
/// ```swift
/// let answer = ServedAnswer(project.evaluate(device, now: clock.now))
/// if EntityTag.matches(ifNoneMatch: header, etag: answer.etag) { /* 304 */ }   // HTTP's EntityTag
/// let body = answer.body(project: project.key, serverTimeText: clock.now.rfc3339)
/// ```
final class ServedAnswer: Sendable {
    let evaluation: Evaluation
    /// `W/"<16 hex digits>"`: FNV-1a 64 of the canonical bytes (the body without `server_time`
    /// and `lifetime`), so it changes exactly when what the device sees does.
    let etag: String
    /// `private, max-age=<lifetime>`.
    let cacheControl: String
    /// `{"project":"<key>","server_time":"`, for the evaluated project.
    let headBytes: [UInt8]
    /// `","lifetime":<n>,"required_update":…}`: everything after the server time.
    let tailBytes: [UInt8]
    /// The last response made for the evaluated project: a device class's checks come at the
    /// same instants (a fleet's timers), so most checks share the fields and the body of the
    /// one before instead of building four fields and a body of their own.
    private let lastResponse = Mutex<MadeResponse?>(nil)

    private struct MadeResponse {
        let serverTime: String
        let notModified: Bool
        let response: HTTPResponse
    }

    init(_ evaluation: Evaluation) {
        self.evaluation = evaluation
        var stateFields: [UInt8] = []
        stateFields.reserveCapacity(160)
        evaluation.writeStateFields(into: &stateFields)
        var projectBytes: [UInt8] = []
        JSON.writeString(evaluation.project, into: &projectBytes)

        var canonical: [UInt8] = Array(#"{"project":"#.utf8)
        canonical.append(contentsOf: projectBytes)
        canonical.append(UInt8(ascii: ","))
        canonical.append(contentsOf: stateFields)
        etag = "W/\"" + FNV1a64.hex(canonical) + "\""
        cacheControl = "private, max-age=\(evaluation.lifetime)"
        headBytes = Self.head(projectBytes: projectBytes)
        var tail: [UInt8] = Array(#"","lifetime":"#.utf8)
        tail.reserveCapacity(16 + stateFields.count)
        tail.append(contentsOf: String(evaluation.lifetime).utf8)
        tail.append(UInt8(ascii: ","))
        tail.append(contentsOf: stateFields)
        tailBytes = tail
    }

    var lifetime: Int { evaluation.lifetime }

    /// The answer's fields with the server time: `Content-Type`, `ETag`, `Cache-Control`,
    /// `Lerix-Server-Time`. A 304 leaves out `Content-Type` (representation metadata, RFC 9110
    /// §15.4.5), so the server has nothing to strip from it, and ends with the
    /// `Vary: Accept-Encoding` the server gives every 304 (HTTPServer's `finalize`): said here,
    /// the server finds it and leaves the fields as they are, where adding it copied the fields
    /// the response memo shares on every 304 (callgrind, h1-304: ~900 instructions a request).
    func headers(serverTime: String, notModified: Bool) -> HTTPHeaders {
        var fields: [HTTPField] = []
        fields.reserveCapacity(4)
        if !notModified { fields.append(HTTPField("Content-Type", "application/json")) }
        fields.append(HTTPField("ETag", etag))
        fields.append(HTTPField("Cache-Control", cacheControl))
        fields.append(HTTPField("Lerix-Server-Time", serverTime))
        if notModified { fields.append(HTTPField("Vary", "Accept-Encoding")) }
        return HTTPHeaders(fields: fields)
    }

    func isValid(at now: Instant) -> Bool { evaluation.isValid(at: now) }

    /// The answer as a check of `project` gets it at `serverTime` (RFC 3339 text): a 304 with
    /// ``headers(serverTime:notModified:)`` when `notModified`, else a 200 with the body too.
    /// The last response for the evaluated project is given again for the same time and status.
    func response(project: String, serverTime: String, notModified: Bool) -> HTTPResponse {
        guard project == evaluation.project else {
            return makeResponse(project: project, serverTime: serverTime, notModified: notModified)
        }
        let shared = lastResponse.withLock { last -> HTTPResponse? in
            // Compared in place: copying the whole memo out cost more than the comparison.
            last?.notModified == notModified && last?.serverTime == serverTime ? last?.response : nil
        }
        if let shared { return shared }
        let made = makeResponse(project: project, serverTime: serverTime, notModified: notModified)
        lastResponse.withLock { $0 = MadeResponse(serverTime: serverTime, notModified: notModified, response: made) }
        return made
    }

    private func makeResponse(project: String, serverTime: String, notModified: Bool) -> HTTPResponse {
        let headers = headers(serverTime: serverTime, notModified: notModified)
        if notModified { return HTTPResponse(status: 304, headers: headers) }
        return HTTPResponse(status: 200, headers: headers, body: body(project: project, serverTimeText: serverTime))
    }

    static func head(projectBytes: [UInt8]) -> [UInt8] {
        var head: [UInt8] = Array(#"{"project":"#.utf8)
        head.append(contentsOf: projectBytes)
        head.append(contentsOf: #","server_time":""#.utf8)
        return head
    }

    /// The 200 body with the server time already formatted (`Instant.rfc3339`), as the caller
    /// formats it once for the `Lerix-Server-Time` header too. `project` is the key the device
    /// asked for; it is the evaluated one except in tests.
    func body(project: String, serverTimeText: String) -> [UInt8] {
        let head: [UInt8]
        if project == evaluation.project {
            head = headBytes
        } else {
            var projectBytes: [UInt8] = []
            JSON.writeString(project, into: &projectBytes)
            head = Self.head(projectBytes: projectBytes)
        }
        var out: [UInt8] = []
        out.reserveCapacity(head.count + 24 + tailBytes.count)
        out.append(contentsOf: head)
        out.append(contentsOf: serverTimeText.utf8)
        out.append(contentsOf: tailBytes)
        return out
    }

    /// ``body(project:serverTimeText:)`` for the evaluated project at `serverTime`.
    func body(serverTime: Instant) -> [UInt8] {
        body(project: evaluation.project, serverTimeText: serverTime.rfc3339)
    }

    /// Whether a request's `If-None-Match` (nil when it sent none) matches this answer's ETag.
    func isNotModified(for ifNoneMatch: String?) -> Bool {
        ifNoneMatch.map { EntityTag.matches(ifNoneMatch: $0, etag: etag) } ?? false
    }
}
