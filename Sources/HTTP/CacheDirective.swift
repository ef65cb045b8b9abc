/// `Cache-Control` values the programs share, so that every document says the same thing.
/// A response without one is live state: `HTTPServer` marks it `no-store`.
///
/// ```swift
/// response.headers.set("Cache-Control", CacheDirective.document)
/// ```
public enum CacheDirective {
    /// Documents that change only with the binary or its flags (indexes, the OpenAPI document):
    /// reusable for a minute, then revalidated with the `ETag` the server derives from the body.
    public static let document = "max-age=60"
}
