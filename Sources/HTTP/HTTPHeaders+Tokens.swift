extension HTTPHeaders {
    /// True when any `name` field lists `token` (comma-separated, case-insensitive,
    /// parameters after `;` ignored), e.g. `Connection: keep-alive, Upgrade` has `upgrade`.
    ///
    /// ```swift
    /// request.headers.containsToken("upgrade", in: "Connection")   // true
    /// ```
    public func containsToken(_ token: String, in name: String) -> Bool {
        for field in fields where Self.namesEqual(field.name, name) {
            for item in field.value.split(separator: ",") {
                let bare = item.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first ?? item
                if Self.namesEqual(String(bare.trimmingOWS), token) { return true }
            }
        }
        return false
    }
}
