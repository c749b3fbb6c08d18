package brand

// Privacy is the brand file's privacy: section (issue 31, Quebec's Law 25
// and PIPEDA), every field optional.
type Privacy struct {
	// DeletedAuditDays is how many days after an account's deletion its
	// audit rows keep their personal data (the client IP, the account id,
	// the detail), for the insurer's fraud and breach investigations; then
	// the janitor strips them to when, which brand, what and how it ended.
	// 0 (absent): stripped at the deletion itself. The rows themselves go
	// with the audit retention (GUICHET_AUDIT_RETENTION_MONTHS).
	DeletedAuditDays int `yaml:"deletedAuditDays"`
}

// MaxDeletedAuditDays bounds privacy.deletedAuditDays (two years, the
// audit trail's own default retention).
const MaxDeletedAuditDays = 730

func validatePrivacy(ps *problems, p Privacy) {
	if p.DeletedAuditDays < 0 || p.DeletedAuditDays > MaxDeletedAuditDays {
		ps.add("privacy.deletedAuditDays", "%d must be 0 to %d (absent: 0, stripped at the deletion)", p.DeletedAuditDays, MaxDeletedAuditDays)
	}
}
