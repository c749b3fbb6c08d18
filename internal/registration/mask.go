package registration

import "guichet/internal/identity"

// The masks are identity's (shared with smart registration).
var (
	maskEmail = identity.MaskEmail
	maskPhone = identity.MaskPhone
)
