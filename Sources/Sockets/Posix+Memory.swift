#if canImport(Glibc)
import CSockets
import POSIX
import Glibc

extension Posix {
    /// Gives the heap's free pages back to the kernel (glibc's `malloc_trim(0)`, every arena).
    /// glibc keeps what a thread freed in that thread's arena, and once a large block has been
    /// freed it stops mapping blocks that size on their own: without this, memory that many
    /// connections held stays with the process after they close. It walks every arena: call it
    /// after large releases, off the event loops.
    public static func returnFreeMemory() {
        _ = malloc_trim(0)
    }
}
#endif
