extension Array {
    /// For a FIFO kept as an array and the index of its first live element: drops the
    /// consumed prefix, at once when nothing is live, else in one move once `threshold`
    /// elements are consumed (so popping stays O(1) amortized).
    mutating func dropConsumedPrefix(_ head: inout Int, threshold: Int) {
        if head == count {
            removeAll(keepingCapacity: capacity <= 16)
            head = 0
        } else if head >= threshold {
            removeFirst(head)
            head = 0
        }
    }
}
