/// Looks at PEM armour ("-----BEGIN X-----") to say what a file holds, for error messages.
enum PEMText {
    /// True when `text` has a `-----BEGIN label-----` line.
    static func contains(_ text: [UInt8], label: String) -> Bool {
        mentions(text, "-----BEGIN \(label)-----")
    }

    /// Any private key armour: PKCS#8, `EC PRIVATE KEY`, `RSA PRIVATE KEY`, encrypted.
    static func holdsPrivateKey(_ text: [UInt8]) -> Bool {
        mentions(text, " PRIVATE KEY-----") || mentions(text, "BEGIN PRIVATE KEY-----")
    }

    static func mentions(_ text: [UInt8], _ needle: String) -> Bool {
        let marker = Array(needle.utf8)
        guard let first = marker.first, text.count >= marker.count else { return false }
        var i = 0
        while i + marker.count <= text.count {
            if text[i] == first, text[i..<(i + marker.count)].elementsEqual(marker) { return true }
            i += 1
        }
        return false
    }
}
