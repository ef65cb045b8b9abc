import HTTP
import JSON
import ReleaseControl

/// One page of a listing that grows with traffic (changes, pushes, push tokens): `?limit=N`
/// items after the cursor `?after=C`, oldest first, and a `next` link while more follow. No
/// answer then grows with the state it lists (the same rule as the push gateway's
/// `GET /deliveries`).
///
/// ```swift
/// let page = try ListPage(call.request, defaultLimit: 1000)
/// let (items, next) = page.take(changes, cursor: \.id)
/// // {"changes": [...], "next": "/admin/projects/demo/changes?after=1000&limit=1000"}
/// ```
struct ListPage: Sendable {
    /// The most items one page may hold, whatever `limit` asks.
    static let maximumLimit = 10_000
    /// The largest cursor accepted: far past any id, and exact as a JSON number (the OpenAPI bound).
    static let maximumCursor = Identifier.maximumNumber

    let limit: Int
    let after: Int

    /// Reads `limit` (1 to ``maximumLimit``) and `after` (a cursor from a `next` link); 422 otherwise.
    init(_ request: HTTPRequest, defaultLimit: Int) throws(Problem) {
        limit =
            try Self.number(
                "limit",
                in: request,
                range: 1...Self.maximumLimit,
                rule: "a whole number from 1 to \(Self.maximumLimit)"
            ) ?? defaultLimit
        after =
            try Self.number(
                "after",
                in: request,
                range: 0...Self.maximumCursor,
                rule: "a cursor as a next link gives it"
            ) ?? 0
    }

    private static func number(
        _ name: String,
        in request: HTTPRequest,
        range: ClosedRange<Int>,
        rule: String
    )
        throws(Problem) -> Int?
    {
        guard let text = request.query(name) else { return nil }  // `limit=` is a mistake, not "no limit"
        guard let n = Int(text), range.contains(n) else {
            throw Problem.parameter(
                name,
                .invalid,
                detail: "\(name) must be \(rule), got \"\(text)\"",
                message: "expected \(rule)"
            )
        }
        return n
    }

    /// The items whose cursor is above `after`, at most `limit`, from items in cursor order;
    /// `next` is the cursor to continue from when more follow.
    func take<Items: Collection>(_ items: Items, cursor: (Items.Element) -> Int) -> (page: [Items.Element], next: Int?)
    {
        var page: [Items.Element] = []
        page.reserveCapacity(min(limit, 1024))
        for item in items where cursor(item) > after {
            if page.count == limit { return (page, page.last.map(cursor)) }
            page.append(item)
        }
        return (page, nil)
    }

    /// The `next` member: the path with the cursor and this page's limit, or null.
    func link(_ path: String, next: Int?) -> JSON {
        guard let next else { return .null }
        return .string("\(path)?after=\(next)&limit=\(limit)")
    }
}

extension ListPage {
    /// The `limit` and `after` parameters as the OpenAPI document states them.
    static func query(defaultLimit: Int) -> [EndpointDoc.QueryParameter] {
        [
            .init(
                name: "limit",
                description: "at most this many (default \(defaultLimit), at most \(maximumLimit))",
                schema: .object([("type", "integer"), ("minimum", 1), ("maximum", .number(Double(maximumLimit)))])
            ),
            .init(
                name: "after",
                description: "the cursor of a next link: where the previous page ended",
                schema: .object([("type", "integer"), ("minimum", 0), ("maximum", .number(Double(maximumCursor)))])
            ),
        ]
    }
}
