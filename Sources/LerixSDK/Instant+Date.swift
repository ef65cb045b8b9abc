package import Clock
import Foundation

extension Instant {
    /// The instant of `date`, to the millisecond (the precision of every time on the wire).
    package init(_ date: Date) {
        self.init(millisecondsSinceEpoch: Int64((date.timeIntervalSince1970 * 1000).rounded()))
    }

    /// The same instant as a Foundation `Date`, for the public surface.
    package var date: Date { Date(timeIntervalSince1970: Double(millisecondsSinceEpoch) / 1000) }
}
