import Clock
import JSON

/// Picks the environment the `scenarios` command asked for.
///
/// - neither `--server` nor `--adapter`: the in-process MockServer and Swift SDK host, pushes
///   through the runner's push-gateway stand-in over h2c (or straight into it with `viaGateway: false`);
/// - `--adapter CMD`: for each scenario the runner serves a fresh in-process MockServer (manual
///   clock) on a free loopback port for a fresh adapter process, pushes through a stand-in of
///   its own as with `--server`;
/// - `--server URL` with or without `--adapter`: that server, reset to the scenario's start
///   before each scenario, its pushes pointed at the runner's push-gateway stand-in for the run.
public enum Environments {
    /// Every scenario's time 0, in every mode and whatever ran before it (Scenarios/README.md):
    /// setup resets the server to 31 minutes before it, and devices are created at it.
    public static let timeZero = Instant(rfc3339: "2026-12-02T09:32:00.000Z")!

    public static func make(
        serverURL: String?,
        adapterCommand: String?,
        adminToken: String?,
        viaGateway: Bool = true,
        adapterOptions: SubprocessAdapter.Options = .init()
    ) throws -> any ScenarioEnvironment {
        switch (serverURL, adapterCommand) {
        case (let url?, let command?):
            return try RemoteEnvironment(
                serverURL: url,
                adminToken: adminToken,
                adapterCommand: command,
                adapterOptions: adapterOptions
            )
        case (nil, let command?):
            return LoopbackEnvironment(adapterCommand: command, adapterOptions: adapterOptions)
        case (let url?, nil):
            return try RemoteEnvironment(serverURL: url, adminToken: adminToken) { try InProcessAdapter.make() }
        case (nil, nil):
            return InProcessEnvironment(viaGateway: viaGateway)
        }
    }
}
