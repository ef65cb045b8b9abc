/// One `sdks` entry of a switch: an SDK name, and optionally the version it applies below.
public struct SDKMatch: Sendable, Equatable {
    public var name: String
    /// nil: every version of that SDK, even when the device sends none.
    public var below: Version?

    public init(name: String, below: Version? = nil) {
        self.name = name
        self.below = below
    }
}
