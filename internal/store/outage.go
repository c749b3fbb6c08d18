package store

import (
	"database/sql"
	"database/sql/driver"
	"errors"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/jackc/pgx/v5/pgconn"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// Unavailable tells whether err says the database cannot be reached or
// used right now (an outage: the request may succeed later), as opposed to
// a bug or bad data: the pool closed, a connection that cannot be opened
// (refused, reset, unreachable, DNS, PostgreSQL not accepting connections),
// a connection lost mid-query, PostgreSQL shutting down or out of
// connections (SQLSTATE classes 08 and 57P, 53300), SQLite busy past its
// busy_timeout or its file unusable (BUSY, LOCKED, CANTOPEN, IOERR, FULL).
// A deadline or a cancellation alone is not one (a slow query, a client
// gone), nor is any constraint, syntax or data error.
func Unavailable(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, sql.ErrConnDone) || errors.Is(err, driver.ErrBadConn) {
		return true
	}
	// database/sql's own error for a closed *sql.DB is not exported.
	if strings.Contains(err.Error(), "sql: database is closed") {
		return true
	}
	var connect *pgconn.ConnectError
	if errors.As(err, &connect) {
		return true
	}
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		return strings.HasPrefix(pg.Code, "08") || strings.HasPrefix(pg.Code, "57P") || pg.Code == "53300"
	}
	var lite *sqlite.Error
	if errors.As(err, &lite) {
		switch lite.Code() & 0xff {
		case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED, sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_IOERR, sqlite3.SQLITE_FULL:
			return true
		}
		return false
	}
	// pgconn's own connection errors (they know SafeToRetry): a pooled
	// connection found closed ("conn closed": the server or the network
	// dropped it) or one lost while reading (unexpected EOF).
	var pgx interface{ SafeToRetry() bool }
	if errors.As(err, &pgx) && (strings.HasSuffix(err.Error(), "conn closed") || errors.Is(err, io.ErrUnexpectedEOF)) {
		return true
	}
	var op *net.OpError
	if errors.As(err, &op) {
		return true
	}
	return errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}
