extension StateDatabase {
    /// True when the file needs upkeep (the committer's background queue runs it): the token
    /// log is due for a fold (``foldIsDue``), or
    /// (with `checkpointAfter`) the write-ahead log holds that many frames.
    func needsMaintenance(checkpointAfter: Int?) -> Bool {
        if foldIsDue { return true }
        guard let checkpointAfter else { return false }
        return connection.framesInLog >= checkpointAfter
    }

    /// Off the request path: copies the write-ahead log into the file and commits one page (the
    /// schema version, as it is) so the log starts over right here: the first commit into a
    /// fresh log syncs the log's header, and that sync belongs to this thread, not to the next
    /// request's commit. Also run once when the file is opened.
    func checkpointAndRestartLog() throws(SQLiteError) {
        try connection.checkpoint()
        try connection.transaction(
            { () throws(SQLiteError) in
                try connection.execute("PRAGMA user_version = \(StateSchema.currentVersion)")
            },
            context: "starting the write-ahead log over"
        )
    }
}
