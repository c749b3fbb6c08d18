package audit

// Name is an audit event's name, as stored in audit_events.event: "flow.action",
// the flow first so a reader (or a LIKE 'flow.%') finds a flow's rows
// together. Every name a package writes is declared below, once, with who
// writes it and when (Keycloak's EventType does the same for its events);
// TestCatalogue holds them unique, well formed and used. The values are
// stored, read back by the console and documented: never change one.
type Name string

// Sign-in (internal/account, the login page and the SSO form of spec §7;
// internal/sso).
const (
	// LoginFind: account, the login page looking an account up by email.
	LoginFind Name = "login.find"
	// LoginAuthentication: account, a password checked by the sign-in API
	// (Authenticate), right or wrong.
	LoginAuthentication Name = "login.authentication"
	// LoginTemporary: account, a temporary password checked (CheckTemporary).
	LoginTemporary Name = "login.temporary"
	// SSOLogin: account, the SSO form's sign-in with a password (detail
	// "password"); sso, the same form redeeming a login ticket (detail
	// "ticket").
	SSOLogin Name = "sso.login"
	// SSOLogout: sso, a customer's session ended at sign-out.
	SSOLogout Name = "sso.logout"
	// SSOSessionEnd: sso, the customer signing a session out from My
	// account's list of where they are signed in (detail "one", or
	// "others:<n>" for every one but theirs).
	SSOSessionEnd Name = "sso.session_end"
	// SSONewDevice: sso, a sign-in from a browser the account had not seen
	// in 90 days, the customer emailed (detail the browser and system).
	SSONewDevice Name = "sso.new_device"
	// Notification: account, spec §7's notification call asking for a
	// RESET_PSW or LOCKED_ACCOUNT email (detail the type). Older than the
	// "flow.action" names and kept as stored.
	Notification Name = "notification"
	// PasswordSet: account, a new password set once the holder proved who
	// they are (a reset code or link, a temporary password; detail
	// "change": the customer's own change on My account).
	PasswordSet Name = "password.set"
	// PasswordCheck: account, the current password checked before the
	// customer's own change (ChangePassword), right or wrong.
	PasswordCheck Name = "password.check"
	// ReauthPassword: account, the password checked as a re-authentication
	// on My account (internal/reauth), right or wrong.
	ReauthPassword Name = "reauth.password"
	// ReauthCodeSend: reauth, a re-authentication code emailed to the
	// account's address.
	ReauthCodeSend Name = "reauth.code_send"
	// ReauthCode: reauth, a re-authentication code checked (outcome ok,
	// wrong_code, exceeded or expired).
	ReauthCode Name = "reauth.code"
	// ContactStart: contact, a code sent to a new email address or cell
	// phone (detail the kind: email or phone).
	ContactStart Name = "contact.start"
	// ContactChange: contact, the code of such a change checked (outcome
	// ok, wrong_code, exceeded, expired or taken; detail the kind).
	ContactChange Name = "contact.change"
	// ContactUndo: contact, the former address's link undoing an email
	// change (outcome ok or invalid).
	ContactUndo Name = "contact.undo"
)

// Passkeys (internal/passkey, issue 31).
const (
	// PasskeyAdd: passkey, a passkey added on My account (outcome ok, or
	// invalid when the browser's answer did not verify).
	PasskeyAdd Name = "passkey.add"
	// PasskeyRename: passkey, a passkey renamed by its customer.
	PasskeyRename Name = "passkey.rename"
	// PasskeyRemove: passkey, a passkey removed by its customer, or by
	// staff from the console (actor the staff member; detail the count).
	PasskeyRemove Name = "passkey.remove"
	// PasskeySignIn: passkey, a sign-in by passkey (outcome ok,
	// unknown_credential, invalid, expired; the account's refusals —
	// locked, disabled — are sso.login's, detail passkey).
	PasskeySignIn Name = "passkey.sign_in"
	// PasskeyReauth: passkey, a passkey assertion as a re-authentication
	// on My account.
	PasskeyReauth Name = "passkey.reauth"
)

// Staff's changes to a customer's account (internal/account, called by the
// console; actor the staff member).
const (
	// AccountDisable: account, staff disabling an account (Disable).
	AccountDisable Name = "account.disable"
	// AccountEnable: account, staff enabling it again (Enable).
	AccountEnable Name = "account.enable"
)

// Registration (internal/registration, spec §4.2).
const (
	// RegistrationFind: registration, the visitor's identification.
	RegistrationFind Name = "registration.find"
	// RegistrationSend: registration, a code sent or resent (detail the
	// method).
	RegistrationSend Name = "registration.send"
	// RegistrationVerify: registration, a validation call, a code or PIN
	// checked.
	RegistrationVerify Name = "registration.verify"
	// RegistrationEmail: registration, the email of account creation
	// submitted.
	RegistrationEmail Name = "registration.email"
	// RegistrationLink: registration, a policy linked to an existing account
	// after its password (ask-password).
	RegistrationLink Name = "registration.link"
	// RegistrationCreate: registration, an account created (detail "token"
	// from an emailed token's registration).
	RegistrationCreate Name = "registration.create"
	// RegistrationWrongPhone: registration, a wrong cell phone closing a
	// token registration and locking the person (account.PhoneLocked
	// counts these rows' outcome).
	RegistrationWrongPhone Name = "registration.wrong_phone"
)

// Smart registration (internal/smartreg).
const (
	// SmartregStart: smartreg, a session started (detail the account type).
	SmartregStart Name = "smartreg.start"
	// SmartregIdentify: smartreg, the typed identification checked.
	SmartregIdentify Name = "smartreg.identify"
	// SmartregSend: smartreg, a code sent or resent, or the mailed PIN
	// chosen (outcome "pin").
	SmartregSend Name = "smartreg.send"
	// SmartregVerify: smartreg, a code or PIN checked.
	SmartregVerify Name = "smartreg.verify"
	// SmartregUsername: smartreg, a username (email) refused as another
	// account's.
	SmartregUsername Name = "smartreg.username"
	// SmartregCreate: smartreg, the account created.
	SmartregCreate Name = "smartreg.create"
)

// Password recovery (internal/recovery; account writes PasswordSet).
const (
	// RecoveryRequest: recovery, a reset code asked for an email.
	RecoveryRequest Name = "recovery.request"
	// RecoveryResend: recovery, the code sent again.
	RecoveryResend Name = "recovery.resend"
	// RecoveryVerify: recovery, a code checked.
	RecoveryVerify Name = "recovery.verify"
	// RecoveryLink: recovery, the link of a RESET_PSW or LOCKED_ACCOUNT email
	// redeemed for a reset token.
	RecoveryLink Name = "recovery.link"
	// RecoveryPassword: recovery, the new password of /reset (detail "token"
	// or "temporary").
	RecoveryPassword Name = "recovery.password"
)

// Emailed magic-link tokens (internal/emailtoken; never the raw token).
const (
	// TokenIssue: emailtoken, a token issued (by the CLI, the admin API or
	// the console's invitation; actor the issuer).
	TokenIssue Name = "token.issue"
	// TokenRead: emailtoken, a token read by the visitor who clicked it.
	TokenRead Name = "token.read"
	// TokenConsume: emailtoken, a token spent (by its registration or
	// reset, or deleted: detail "delete").
	TokenConsume Name = "token.consume"
)

// Staff accounts and sessions (internal/staff; brand staff.AuditBrand, actor
// "staff:<id>" or "cli").
const (
	// StaffSignIn: staff, a sign-in's password and then its second factor.
	StaffSignIn Name = "staff.sign_in"
	// StaffSignOut: staff, a staff session ended at sign-out.
	StaffSignOut Name = "staff.sign_out"
	// StaffReauth: staff, a fresh TOTP code proved on a signed-in session.
	StaffReauth Name = "staff.reauth"
	// StaffSetup: staff, a member's set-up link used (password and TOTP).
	StaffSetup Name = "staff.setup"
	// StaffAdd: staff, a member added by an admin or the CLI.
	StaffAdd Name = "staff.add"
	// StaffDisable: staff, a member disabled by an admin or the CLI.
	StaffDisable Name = "staff.disable"
	// StaffLock: staff, the failure that locks a member (after StaffSignIn's
	// row of that failure).
	StaffLock Name = "staff.lock"
)

// The staff console's calls (internal/console, and chat and co-browse for
// ConsoleForbidden; actor the staff member).
const (
	// ConsoleCustomerView: console, a customer's account viewed.
	ConsoleCustomerView Name = "console.customer_view"
	// ConsoleForbidden: console, chat and cobrowse, a call refused for the
	// member's role or a brand they do not serve.
	ConsoleForbidden Name = "console.forbidden"
	// ConsoleUnlock: console, an account unlocked.
	ConsoleUnlock Name = "console.unlock"
	// ConsoleTemporaryPassword: console, a temporary password issued (detail
	// how it was delivered).
	ConsoleTemporaryPassword Name = "console.temporary_password"
	// ConsoleResetEmail: console, the password-reset link emailed to a
	// customer.
	ConsoleResetEmail Name = "console.reset_email"
	// ConsoleInvitation: console, a registration invitation sent.
	ConsoleInvitation Name = "console.invitation"
	// ConsolePolicyImport: console, a policy file imported or dry run.
	ConsolePolicyImport Name = "console.policy_import"
	// ConsoleAuditExport: console, the audit CSV exported.
	ConsoleAuditExport Name = "console.audit_export"
)

// Maintenance windows (internal/maintenance, from the console or the CLI).
const (
	// MaintenanceOn: maintenance, turned on for a brand or every brand.
	MaintenanceOn Name = "maintenance.on"
	// MaintenanceOff: maintenance, turned off.
	MaintenanceOff Name = "maintenance.off"
)

// The agents' chat actions (internal/chat through chatapi; brand
// staff.AuditBrand, detail the conversation id).
const (
	// ChatAvailability: an agent's availability changed.
	ChatAvailability Name = "chat.availability"
	// ChatAccept: an agent accepting a waiting conversation.
	ChatAccept Name = "chat.accept"
	// ChatTransfer: a conversation transferred to another agent.
	ChatTransfer Name = "chat.transfer"
	// ChatEnd: an agent ending a conversation.
	ChatEnd Name = "chat.end"
	// ChatOfflineReply: an agent answering an offline message by email.
	ChatOfflineReply Name = "chat.offline_reply"
	// ChatTranscriptView: a transcript read, or a socket subscribing to a
	// conversation.
	ChatTranscriptView Name = "chat.transcript_view"
	// ChatTranscriptSearch: a transcript search (detail "brand=… q=…").
	ChatTranscriptSearch Name = "chat.transcript_search"
)

// Co-browse sessions (internal/cobrowse; staff rows: brand
// staff.AuditBrand, visitor rows: the session's brand).
const (
	// CobrowseStart: cobrowse, a session started by a visitor's code or an
	// agent's request in a chat.
	CobrowseStart Name = "cobrowse.start"
	// CobrowseConsent: cobrowse, the visitor accepting an agent's request.
	CobrowseConsent Name = "cobrowse.consent"
	// CobrowseDecline: cobrowse, the visitor declining it.
	CobrowseDecline Name = "cobrowse.decline"
	// CobrowseJoin: cobrowse, an agent typing a code (Join counts the wrong
	// ones from these rows) or opening the viewer (outcome "viewer").
	CobrowseJoin Name = "cobrowse.join"
	// CobrowseEnd: cobrowse, a session ended (outcome the reason).
	CobrowseEnd Name = "cobrowse.end"
)

// The OpenID provider (internal/oidc): operators' changes (actor "cli" or
// "staff:<id>") and grants' ends (no actor).
const (
	// OIDCClientAdd: oidc, a client registered.
	OIDCClientAdd Name = "oidc.client_add"
	// OIDCClientDisable: oidc, a client disabled.
	OIDCClientDisable Name = "oidc.client_disable"
	// OIDCKeysRotate: oidc, a brand's signing key replaced.
	OIDCKeysRotate Name = "oidc.keys_rotate"
	// OIDCCodeReuse: oidc, an authorization code traded again, revoking its
	// grant.
	OIDCCodeReuse Name = "oidc.code_reuse"
	// OIDCRefreshReuse: oidc, a spent refresh token presented again,
	// revoking its grant.
	OIDCRefreshReuse Name = "oidc.refresh_reuse"
	// OIDCRevoke: oidc, a grant revoked (the client's revocation call,
	// RP-initiated logout; every grant of an account at its sign-out, a
	// password reset, staff disabling it).
	OIDCRevoke Name = "oidc.revoke"
	// OIDCAuthorize: oidc, a customer signed in for a client's /authorize
	// (detail client:<id>).
	OIDCAuthorize Name = "oidc.authorize"
	// OIDCToken: oidc, a code traded for tokens (detail client:<id>).
	OIDCToken Name = "oidc.token"
	// OIDCRefresh: oidc, a refresh token traded for the next one.
	OIDCRefresh Name = "oidc.refresh"
	// OIDCLogout: oidc, a client's grants ended by an RP-initiated logout.
	OIDCLogout Name = "oidc.logout"
	// OIDCConsent: oidc, a customer's answer on a third-party client's
	// consent page (outcome ok or denied; detail client:<id>).
	OIDCConsent Name = "oidc.consent"
	// OIDCConsentWithdraw: oidc, a customer took a consent back on
	// /my-account (the client's grants of them end).
	OIDCConsentWithdraw Name = "oidc.consent_withdraw"

	// ExportRequest: privacy, the customer asked for an export of their
	// data on My account (after a fresh proof).
	ExportRequest Name = "export.request"
	// ExportReady: privacy, an export was prepared and announced by email.
	ExportReady Name = "export.ready"
	// ExportDownload: privacy, the customer downloaded their export
	// (detail json or html).
	ExportDownload Name = "export.download"
	// DeletionRequest: privacy, the customer asked for their account's
	// deletion (after a fresh proof); it is pending for 30 days.
	DeletionRequest Name = "deletion.request"
	// DeletionUndo: privacy, a pending deletion was cancelled (detail
	// account: on My account; link: by the emailed link).
	DeletionUndo Name = "deletion.undo"
	// DeletionDone: privacy, the grace ended and the account and its
	// personal rows were erased (actor "janitor").
	DeletionDone Name = "deletion.done"
)
