/// "Did you mean …?" for a misspelt key, option or name: the known candidate nearest by
/// edit distance, when it is near enough to be a typo rather than a different word.
///
/// One helper for every place lerix-mock refuses a name it does not know (admin bodies,
/// `--config` files, query parameters, scenario files, command-line options), so the same
/// typo gets the same suggestion everywhere.
///
/// ```swift
/// KeySuggestion.nearest(to: "bellow", in: ["below", "platforms"])     // "below"
/// KeySuggestion.nearest(to: "colour", in: ["below", "platforms"])     // nil
/// "unknown key 'bellow'" + KeySuggestion.hint(for: "bellow", in: ["below", "type"])
/// // "unknown key 'bellow' (did you mean 'below'?)"
/// ```
public enum KeySuggestion {
    /// The candidate nearest to `word`, or nil when none is near enough to be a typo of it.
    ///
    /// Case is ignored when measuring (`Below` suggests `below`). A candidate is near when
    /// its distance is at most a third of the word's length (at least 2), and less than the
    /// word's length, so a two-letter word never "suggests" an unrelated two-letter key.
    /// Ties go to the alphabetically first candidate, so the answer is stable.
    public static func nearest<Candidates: Sequence<String>>(to word: String, in candidates: Candidates) -> String? {
        let typed = Array(word.lowercased())
        let limit = min(max(2, typed.count / 3), typed.count - 1)
        guard limit >= 0 else { return nil }
        var best: (candidate: String, distance: Int)?
        for candidate in candidates {
            let known = Array(candidate.lowercased())
            let bound = min(limit, best.map { $0.distance } ?? limit)
            guard let d = distance(typed, known, atMost: bound) else { continue }
            if let b = best, d > b.distance || (d == b.distance && candidate >= b.candidate) { continue }
            best = (candidate, d)
        }
        return best?.candidate
    }

    /// The text to append to an "unknown X" message: ` (did you mean 'x'?)` when one candidate is
    /// near, else ` (expected one of: a, b, c)` when the choice is short enough to list, else "".
    public static func hint<Candidates: Sequence<String>>(for word: String, in candidates: Candidates) -> String {
        let all = Array(candidates)
        if let near = nearest(to: word, in: all) { return " (did you mean '\(near)'?)" }
        guard !all.isEmpty, all.count <= 12 else { return "" }
        return " (expected one of: \(Set(all).sorted().joined(separator: ", ")))"
    }

    /// Edit distance counting an insertion, deletion, substitution or swap of two neighbours
    /// as one edit (optimal string alignment, the Damerau-Levenshtein variant).
    public static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a)
        let b = Array(b)
        return distance(a, b, atMost: max(a.count, b.count)) ?? max(a.count, b.count)
    }

    /// The distance when it is at most `bound`, else nil. Lengths that differ by more than the
    /// bound are rejected before any work, so a hostile megabyte-long key costs nothing.
    static func distance(_ a: [Character], _ b: [Character], atMost bound: Int) -> Int? {
        guard abs(a.count - b.count) <= bound else { return nil }
        if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
        // Three rolling rows: the one before the previous is needed for swaps.
        var beforePrevious = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            var rowMinimum = i
            for j in 1...b.count {
                let substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
                var d = min(previous[j] + 1, current[j - 1] + 1, substitution)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    d = min(d, beforePrevious[j - 2] + 1)
                }
                current[j] = d
                rowMinimum = min(rowMinimum, d)
            }
            // No later cell can be smaller than this row's minimum (a swap costs what a
            // substitution in this row already did), so stop once the whole row is past the bound.
            if rowMinimum > bound { return nil }
            (beforePrevious, previous, current) = (previous, current, beforePrevious)
        }
        let d = previous[b.count]
        return d <= bound ? d : nil
    }
}
