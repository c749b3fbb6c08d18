package app

import "crypto/tls"

// TLSConfig is the HTTPS listener's configuration (GUICHET_TLS_CERT and
// GUICHET_TLS_KEY; docs/design.md "TLS"): TLS 1.2 with ECDHE and AEAD
// suites only (AES-GCM, ChaCha20-Poly1305; no CBC, no RSA key exchange),
// TLS 1.3 (whose suites are all AEAD), HTTP/2 offered first, and no session
// tickets: every instance would otherwise issue tickets under its own
// key, rotated on its own, valid for 7 days; tickets off also turns TLS 1.3
// resumption off, a full handshake per connection that keep-alive and
// HTTP/2 spread over many requests.
func TLSConfig() *tls.Config {
	return &tls.Config{
		MinVersion: tls.VersionTLS12,
		CipherSuites: []uint16{
			tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,
			tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,
			tls.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384,
			tls.TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,
			tls.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256,
			tls.TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256,
		},
		NextProtos:             []string{"h2", "http/1.1"},
		SessionTicketsDisabled: true,
	}
}
