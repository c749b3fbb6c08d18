package store

import (
	"context"
	"database/sql"
	"errors"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"

	"guichet/internal/telemetry"
)

const tracerScope = "guichet/internal/store"

// statementSpan is the span of one statement run outside a transaction,
// under a traced request (telemetry.Child): named by its operation and
// table ("SELECT accounts"), never the statement's arguments.
func (db *DB) statementSpan(ctx context.Context, q string) (context.Context, trace.Span) {
	if !trace.SpanFromContext(ctx).IsRecording() {
		return telemetry.Child(ctx, tracerScope, "") // records nothing
	}
	op, table := operation(q)
	name := op
	attrs := []attribute.KeyValue{db.system(), semconv.DBOperationName(op)}
	if table != "" {
		name += " " + table
		attrs = append(attrs, semconv.DBCollectionName(table))
	}
	return telemetry.Child(ctx, tracerScope, name, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
}

// txSpan is the span of one InTx, named once it ends after its first
// statement ("transaction UPDATE outbox"), with how many statements and
// attempts it took.
func (db *DB) txSpan(ctx context.Context) (context.Context, trace.Span) {
	if !trace.SpanFromContext(ctx).IsRecording() {
		return telemetry.Child(ctx, tracerScope, "") // records nothing
	}
	return telemetry.Child(ctx, tracerScope, "transaction", trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(db.system(), semconv.DBOperationName("transaction")))
}

// endTx ends a transaction's span.
func endTx(span trace.Span, tx *Tx, attempts int, err error) {
	if !span.IsRecording() {
		return
	}
	if tx.first != "" {
		op, table := operation(tx.first)
		span.SetName(strings.TrimSpace("transaction " + op + " " + table))
	}
	span.SetAttributes(attribute.Int("guichet.db.statements", tx.count), attribute.Int("guichet.db.attempts", attempts))
	endSpan(span, err)
}

// endSpan ends a statement's or transaction's span, marked failed with the
// kind of error only (a driver's message may quote a value).
func endSpan(span trace.Span, err error) {
	if err != nil && !errors.Is(err, sql.ErrNoRows) && span.IsRecording() {
		kind := "other"
		switch {
		case IsUniqueViolation(err):
			kind = "unique_violation"
		case retryable(err):
			kind = "busy"
		case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
			kind = "canceled"
		}
		span.SetAttributes(semconv.ErrorTypeKey.String(kind))
		span.SetStatus(codes.Error, kind)
	}
	span.End()
}

func (db *DB) system() attribute.KeyValue {
	if db.Dialect == Postgres {
		return semconv.DBSystemNamePostgreSQL
	}
	return semconv.DBSystemNameSQLite
}

// operation is a statement's first keyword and the table it names first
// (after FROM, INTO, UPDATE or TABLE): a low-cardinality summary of the
// code's constant SQL, never a literal of it. A word that is not a plain
// keyword or identifier is left out.
func operation(q string) (op, table string) {
	words := strings.Fields(q)
	if len(words) == 0 || !isWord(words[0], false) {
		return "statement", ""
	}
	op = strings.ToUpper(words[0])
	for i, w := range words[:len(words)-1] {
		switch strings.ToUpper(w) {
		case "FROM", "INTO", "UPDATE", "TABLE":
			if t := strings.TrimRight(words[i+1], ",;)"); isWord(t, true) {
				return op, strings.ToLower(t)
			}
		}
	}
	return op, ""
}

// isWord: letters (and, for an identifier, digits, _ and .) only, 1 to 63
// of them.
func isWord(s string, ident bool) bool {
	if s == "" || len(s) > 63 {
		return false
	}
	for i, c := range s {
		letter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if !letter && !(ident && i > 0 && (c >= '0' && c <= '9' || c == '_' || c == '.')) && !(ident && c == '_') {
			return false
		}
	}
	return true
}
