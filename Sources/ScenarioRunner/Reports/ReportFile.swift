import Foundation
import POSIX

/// Report files (`--junit`, and any other report a run writes): checked before anything runs,
/// so a path CI cannot write fails in a second instead of after the whole suite.
public enum ReportFile {
    /// Why `path` cannot be written, or nil. An existing file is left as it is; a new one is
    /// created to prove it can be, then removed, so a run that stops early leaves nothing behind.
    public static func problem(writing path: String) -> String? {
        switch Posix.kind(of: path) {
        case .folder: return "cannot write \(path): it is a folder"
        // A FIFO (or device) is no report file: opening one to write waits for a reader for ever.
        case .other: return "cannot write \(path): not a regular file (a FIFO or device); give a file path"
        case .regular, nil: break
        }
        if let error = Posix.checkWritable(path) { return "cannot write \(path): \(error.reason)" }
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
