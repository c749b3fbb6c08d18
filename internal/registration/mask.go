package registration

import "guichet/internal/identity"

// The email mask is identity's (shared with smart registration).
var maskEmail = identity.MaskEmail
