#if canImport(Glibc)
import Glibc

extension Posix {
    /// Raises the soft open-file limit to the hard one and returns the new soft limit:
    /// a server holding ten thousand keep-alive connections needs more than the usual 1024.
    @discardableResult
    public static func raiseOpenFileLimit() -> Int {
        var limit = rlimit()
        let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        guard getrlimit(resource, &limit) == 0 else { return -1 }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(resource, &raised) == 0 { limit = raised }
        }
        return limit.rlim_cur > rlim_t(Int.max) ? Int.max : Int(limit.rlim_cur)
    }
}
#endif
