extension StateDatabase {
    /// True when ``maintainStep(checkpoint:)`` has work: the token log is due for a fold (``foldIsDue``), or
    /// (with `checkpointAfter`) the write-ahead log holds that many frames.
    func needsMaintenance(checkpointAfter: Int?) -> Bool {
        if foldIsDue { return true }
        guard let checkpointAfter else { return false }
        return connection.framesInLog >= checkpointAfter
    }

    /// One step of upkeep, off the request path (the committer's background queue): a step of a
    /// due fold (``foldTokenLogStep()``); once the fold is done (or when none is due) and
    /// `checkpoint` holds, copies the write-ahead log into the file and commits one page (the
    /// schema version, as it is) so the log starts over right here: the first commit into a
    /// fresh log syncs the log's header, and that sync belongs to this thread, not to the next
    /// request's commit. Returns true when another step is due.
    func maintainStep(checkpoint: Bool) throws(SQLiteError) -> Bool {
        if foldIsDue, try !foldTokenLogStep() { return true }
        if checkpoint { try checkpointAndRestartLog() }
        return false
    }

    /// The checkpoint half of ``maintainStep(checkpoint:)``; also run once when the file is opened.
    func checkpointAndRestartLog() throws(SQLiteError) {
        try connection.checkpoint()
        try connection.transaction({ () throws(SQLiteError) in
            try connection.execute("PRAGMA user_version = \(StateSchema.currentVersion)")
        }, context: "starting the write-ahead log over")
    }
}
