import JSON

/// "Did you mean …?" in scenario-file messages, through the one shared `KeySuggestion`.
enum Suggestion {
    /// `message` plus " (did you mean X?)" when one candidate is near, or the short list of choices.
    static func message(_ message: String, for word: String, in candidates: [String]) -> String {
        message + KeySuggestion.hint(for: word, in: candidates)
    }
}
