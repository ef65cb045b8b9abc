import Adapter
import LerixMock

/// The host's network as it is: every `send` has completed (answered, or given up as a timeout)
/// before it returns, so there is never anything to wait for, nor requests in flight to count.
extension ResponderTransport: AdapterNetwork {
    package func runUntilIdle() {}
}
