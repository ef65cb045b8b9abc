import Foundation

/// Report files (`--junit`, and any other report a run writes): checked before anything runs,
/// so a path CI cannot write fails in a second instead of after the whole suite.
public enum ReportFile {
    /// Why `path` cannot be written, or nil. An existing file is left as it is; a new one is
    /// created to prove it can be, then removed, so a run that stops early leaves nothing behind.
    public static func problem(writing path: String) -> String? {
        var isDirectory: ObjCBool = false
        let existed = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
        if existed, isDirectory.boolValue { return "cannot write \(path): it is a folder" }
        // A FIFO (or device) is no report file: opening one to write waits for a reader for ever.
        var info = stat()
        if existed, stat(path, &info) == 0, info.st_mode & S_IFMT != S_IFREG {
            return "cannot write \(path): not a regular file (a FIFO or device); give a file path"
        }
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NONBLOCK, 0o644)
        guard fd >= 0 else { return "cannot write \(path): \(String(cString: strerror(errno)))" }
        close(fd)
        if !existed { unlink(path) }
        return nil
    }

    /// Writes `text` to `path` whole (through a temporary file, so a reader never sees half a report).
    public static func write(_ text: String, to path: String) -> String? {
        do {
            try Data(text.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
            return nil
        } catch {
            return "cannot write \(path): \(error.localizedDescription)"
        }
    }
}
