@testable import ScenarioRunner

extension SubprocessAdapter.Options {
    /// The wall-clock budgets of an adapter a test spawns: 60 s an answer and 30 s to exit once
    /// its stdin ends, against the documented 5 s and 2 s. Tests run on loaded machines, where a
    /// spawned process is scheduled late through no fault of its own; an adapter that never
    /// answers or never exits still fails, which is what these tests judge.
    static var onALoadedMachine: Self { .init(commandTimeout: 60, exitTimeout: 30) }
}
