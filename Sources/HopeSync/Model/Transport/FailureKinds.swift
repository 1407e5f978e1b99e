/// How a sync pass reads a failed request: whose fault it is, and whether it will pass.
extension SyncError {
    /// A 4xx the rows themselves caused. Not: schema drift (every row fails alike), an expired
    /// token (401), a timeout or throttling (408, 429), a build below the writer floor (426).
    var isRowsFault: Bool {
        guard code == .server, let server = serverError else { return false }
        guard (400..<500).contains(server.status), ![401, 408, 426, 429].contains(server.status) else { return false }
        return SchemaDrift(server) == nil && server.code != "PGRST102" && !writesARetiredColumn
    }

    /// The write named a column the server now computes from another (428C9): a rename's or a
    /// removal's finishing step retired it (decision 0052), which only a build below
    /// `oldest_writer` still writes. PostgreSQL refuses it before the floor's check runs, so it
    /// is no more the rows' fault than PT426 is: the engine asks the server's floor at once.
    var writesARetiredColumn: Bool {
        code == .server && serverError?.code == "428C9"
    }

    /// PostgREST answered with its error body (a code): the request's transaction did not
    /// commit. A failure without one (a dropped connection, a gateway's 502 or 504) proves
    /// nothing about what ran.
    var provesNothingCommitted: Bool {
        code == .server && serverError?.code != nil
    }

    /// The server refused this build's write as older than its writer floor (PT426: HTTP 426
    /// Upgrade Required, decision 0051). Never the rows' fault: every write of the build meets it.
    var refusesThisBuild: Bool {
        code == .server && serverError?.code == "PT426"
    }

    /// The server refused a claim as more than a day past its clock (22008): this device's clock
    /// is off, and its claims can be made again once it follows the server's.
    var refusesTheClock: Bool {
        code == .server && serverError?.code == "22008"
    }

    /// A 5xx that may be one row's doing (a trigger raising on its values, a value too large to
    /// index); not the transient ones, which every row would meet alike.
    var isRowsServerFailure: Bool {
        guard code == .server, let server = serverError, (500..<600).contains(server.status) else { return false }
        return !server.isTransient
    }
}

extension ServerError {
    /// The server's passing troubles: unavailable, a gateway, a timeout, a serialization failure
    /// or deadlock, a lock not had in time (55P03: another request of the same user was writing,
    /// and the server does not let its requests queue), PostgREST unable to reach the database.
    var isTransient: Bool {
        if [502, 503, 504].contains(status) { return true }
        guard let code else { return false }
        return ["40001", "40P01", "55P03", "57014", "57P01"].contains(code) || code.hasPrefix("08") || code.hasPrefix("53")
            || code.hasPrefix("PGRST00")
    }
}
