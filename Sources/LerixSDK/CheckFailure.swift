package import Clock
import Foundation
internal import JSON

/// Why the last failed check got no usable answer: the network, the server's status, or a
/// body that is not an answer. ``LerixState/lastCheckFailure`` holds the latest one.
///
/// ```swift
/// if let failure = lerix.state.lastCheckFailure, failure.kind == .status {
///     print("the server answered \(failure.status ?? 0): \(failure.reason)")
/// }
/// ```
public struct CheckFailure: Equatable, Sendable, CustomStringConvertible {
    /// What failed.
    public enum Kind: String, Sendable {
        /// No response: refused, unreachable, reset, timed out, an unsupported URL.
        case connection
        /// A response with a status other than 200 or 304 (a 404 for an unknown project, a 5xx).
        case status
        /// A 200 whose body is not a JSON object.
        case body
    }

    /// What failed.
    public var kind: Kind
    /// The HTTP status, when a response arrived.
    public var status: Int?
    /// In words: the transport's error, the problem's title and detail, or what is wrong with the body.
    public var reason: String
    /// When the check failed (device clock).
    package var instant: Instant

    /// When the check failed (device clock).
    public var at: Date { instant.date }

    package init(kind: Kind, status: Int? = nil, reason: String, at instant: Instant) {
        self.kind = kind
        self.status = status
        self.reason = reason
        self.instant = instant
    }

    /// A response with an unexpected status; a problem+json body's title and detail say why.
    package init(status response: TransportResponse, at instant: Instant) {
        var reason = "the server answered \(response.status)"
        if let problem = try? JSON.parse(response.body).objectValue {
            let words = [problem["title"]?.stringValue, problem["detail"]?.stringValue].compactMap { $0 }
            if !words.isEmpty { reason += ": " + words.joined(separator: ": ") }
        }
        self.init(kind: .status, status: response.status, reason: reason, at: instant)
    }

    /// `status failure: the server answered 404: …`
    public var description: String { "\(kind.rawValue) failure: \(reason)" }
}
