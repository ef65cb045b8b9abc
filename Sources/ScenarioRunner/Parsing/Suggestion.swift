/// "Did you mean …?" for a misspelt key or name: the candidate nearest by edit distance,
/// when it is near enough to be a typo.
enum Suggestion {
    static func closest(to word: String, in candidates: [String]) -> String? {
        let w = Array(word.lowercased())
        var best: (String, Int)?
        for candidate in candidates.sorted() {
            let d = editDistance(w, Array(candidate.lowercased()))
            if best == nil || d < best!.1 { best = (candidate, d) }
        }
        guard let (name, distance) = best, distance <= max(2, word.count / 3) else { return nil }
        return name
    }

    /// `message` plus " (did you mean X?)" when one is near.
    static func message(_ message: String, for word: String, in candidates: [String]) -> String {
        guard let s = closest(to: word, in: candidates) else {
            return candidates.count <= 12 ? message + " (expected one of: \(candidates.sorted().joined(separator: ", ")))" : message
        }
        return message + " (did you mean '\(s)'?)"
    }

    /// Levenshtein distance with transpositions counted as one edit.
    static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var d = Array(repeating: Array(repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { d[i][0] = i }
        for j in 0...b.count { d[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
                }
            }
        }
        return d[a.count][b.count]
    }
}
