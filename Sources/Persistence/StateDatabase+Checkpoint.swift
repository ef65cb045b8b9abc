extension StateDatabase {
    /// True when ``maintain(checkpoint:)`` has work: the token log has grown past its bound, or
    /// (with `checkpointAfter`) the write-ahead log holds that many frames.
    func needsMaintenance(checkpointAfter: Int?) -> Bool {
        if loggedTokens >= foldTokenLogAfter { return true }
        guard let checkpointAfter else { return false }
        return connection.framesInLog >= checkpointAfter
    }

    /// Off the request path (the committer's background queue): folds a grown token log, then,
    /// when `checkpoint`, copies the write-ahead log into the file and commits one page (the
    /// schema version, as it is) so the log starts over right here: the first commit into a
    /// fresh log syncs the log's header, and that sync belongs to this thread, not to the next
    /// request's commit.
    func maintain(checkpoint: Bool) throws(SQLiteError) {
        if loggedTokens >= foldTokenLogAfter {
            try connection.transaction({ () throws(SQLiteError) in try foldTokenLog() }, context: "folding the token log")
        }
        if checkpoint { try checkpointAndRestartLog() }
    }

    /// The checkpoint half of ``maintain(checkpoint:)``; also run once when the file is opened.
    func checkpointAndRestartLog() throws(SQLiteError) {
        try connection.checkpoint()
        try connection.transaction({ () throws(SQLiteError) in
            try connection.execute("PRAGMA user_version = \(StateSchema.currentVersion)")
        }, context: "starting the write-ahead log over")
    }
}
