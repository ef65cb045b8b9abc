import Clock

/// What a mock starts with unless told, named once here, below the server and the scenario
/// language that both name them.
public enum MockDefaults {
    /// `demo`: the project a server starts with unless told, and the one LerixMock, recordings,
    /// scenarios and adapter-check use unless told.
    public static let projectKey = "demo"

    /// Where an in-process mock (LerixMock, the scenario runner's in-process server) starts its
    /// manual clock unless told: 2026-12-02T09:00:00Z, fixed so every run prints the same times.
    public static let virtualStart = Instant(millisecondsSinceEpoch: 1_796_202_000_000)
}
