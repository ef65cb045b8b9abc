extension StateDatabase {
    /// Copies the write-ahead log into the file, then commits one page (the schema version, as
    /// it is) so the log starts over right here: the first commit into a fresh log syncs the
    /// log's header, and that sync belongs to the caller (a background thread), not to the next
    /// request's commit.
    func checkpointAndRestartLog() throws(SQLiteError) {
        try connection.checkpoint()
        try connection.transaction({ () throws(SQLiteError) in
            try connection.execute("PRAGMA user_version = \(StateSchema.currentVersion)")
        }, context: "starting the write-ahead log over")
    }
}
