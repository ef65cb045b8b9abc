/// The keys one kind of body may hold, decided in one place for every body lerix-mock reads:
/// rules, project settings, clock moves, faults, snapshots and `--config` files.
///
/// A key outside the list is never ignored: a typo (`bellow`, `platform`) would otherwise
/// change what the body means without a word. It is an ``FieldProblem/Kind/unknownField``
/// whose message suggests the nearest known key. Keys the API itself shows in its answers
/// (an `id`, a count, a timestamp) are accepted when they repeat what the API would show,
/// so a body read with `GET` can be sent back as it is.
///
/// ```swift
/// let fields = BodyFields(name: "a required_update rule", writable: ["type", "below", "platforms"],
///                         shown: [("id", "r1")])
/// fields.problems(in: ["type": "required_update", "bellow": "2.0.0", "id": "r1"])
/// // [/bellow: unknown field in a required_update rule (did you mean 'below'?)]
/// ```
public struct BodyFields: Sendable {
    /// How a message names the body: "a maintenance rule", "a project".
    public var name: String
    /// The keys a write sets.
    public var writable: [String]
    /// Keys the API shows, with the value it shows now; nil when a write can never set it
    /// (an `id` on create: the server assigns it).
    public var shown: [(key: String, value: JSON?)]
    /// Keys that belong to other kinds of the same body, with a note saying where, so a
    /// `below` on a maintenance window is explained rather than only refused.
    public var elsewhere: [String: String]

    public init(
        name: String,
        writable: [String],
        shown: [(key: String, value: JSON?)] = [],
        elsewhere: [String: String] = [:]
    ) {
        self.name = name
        self.writable = writable
        self.shown = shown
        self.elsewhere = elsewhere
    }

    /// Every key of `object` that this body may not hold, pointers under `base`.
    public func problems(in object: JSONObject, at base: String = "") -> [FieldProblem] {
        var problems: [FieldProblem] = []
        for key in object.keys where !writable.contains(key) {
            let pointer = base + "/" + FieldProblem.escape(key)
            if let entry = shown.first(where: { $0.key == key }) {
                if object[key] == .null { continue }  // null counts as absent, as for every field
                guard let current = entry.value else {
                    problems.append(
                        FieldProblem(
                            pointer: pointer,
                            message: "\(key) is set by the server; leave it out",
                            kind: .invalidValue
                        )
                    )
                    continue
                }
                if object[key] != current {
                    problems.append(
                        FieldProblem(
                            pointer: pointer,
                            message:
                                "\(key) is set by the server (it is \(current.serializedString) here); leave it out or send it unchanged",
                            kind: .invalidValue
                        )
                    )
                }
                continue
            }
            var message = "unknown field '\(key)' in \(name)"
            if let note = elsewhere[key] {
                message += " (\(note))"
            } else {
                message += KeySuggestion.hint(for: key, in: writable + shown.filter { $0.value != nil }.map(\.key))
            }
            problems.append(FieldProblem(pointer: pointer, message: message, kind: .unknownField))
        }
        return problems
    }
}
