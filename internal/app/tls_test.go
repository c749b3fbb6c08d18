package app

import (
	"context"
	"crypto/tls"
	"net"
	"net/http"
	"testing"
	"time"

	"guichet/internal/testenv"
)

// cbcSuites are the TLS 1.2 CBC suites a client may offer (the ones the
// outside tester saw accepted among them).
var cbcSuites = []uint16{
	tls.TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA, tls.TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA,
	tls.TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA, tls.TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA,
	tls.TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256, tls.TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256,
	tls.TLS_RSA_WITH_AES_128_CBC_SHA, tls.TLS_RSA_WITH_AES_256_CBC_SHA, tls.TLS_RSA_WITH_AES_128_CBC_SHA256,
}

// handshake dials addr with cfg and returns the connection state.
func handshake(addr string, cfg *tls.Config) (tls.ConnectionState, error) {
	conn, err := tls.DialWithDialer(&net.Dialer{Timeout: 10 * time.Second}, "tcp", addr, cfg)
	if err != nil {
		return tls.ConnectionState{}, err
	}
	defer conn.Close()
	return conn.ConnectionState(), nil
}

// TestTLSConfig starts `guichet serve` with GUICHET_TLS_CERT and
// GUICHET_TLS_KEY (a self-signed ECDSA, then RSA, certificate): a TLS 1.2
// client offering only CBC suites is refused, one offering an AEAD suite
// gets it, TLS 1.3 works, HTTP/2 is negotiated and serves, and no session
// ticket is issued. The same CBC client against Go's default configuration
// succeeds: the refusal is the configuration's.
func TestTLSConfig(t *testing.T) {
	for _, rsaKey := range []bool{false, true} {
		name := map[bool]string{false: "ecdsa", true: "rsa"}[rsaKey]
		t.Run(name, func(t *testing.T) {
			self := testenv.SelfSigned(t, rsaKey)
			certFile, keyFile := self.Files(t)
			pool := self.Pool

			// The control: Go's defaults take a CBC suite on TLS 1.2.
			cert, err := tls.LoadX509KeyPair(certFile, keyFile)
			if err != nil {
				t.Fatal(err)
			}
			control := testenv.HandshakeServer(t, &tls.Config{Certificates: []tls.Certificate{cert}})
			cbc := &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12, MaxVersion: tls.VersionTLS12, CipherSuites: cbcSuites}
			if _, err := handshake(control, cbc); err != nil {
				t.Fatalf("control: Go's default server refused a CBC client: %v", err)
			}

			ctx, stop := context.WithCancel(context.Background())
			a, err := newApp(ctx, Config{Dev: true, DataDir: t.TempDir(), BrandsDir: "../../config/brands",
				Addr: "127.0.0.1:0", TLSCert: certFile, TLSKey: keyFile})
			if err != nil {
				t.Fatal(err)
			}
			addrc, served := goServe(ctx, a)
			addr := <-addrc
			defer func() {
				stop()
				if err := <-served; err != nil && err != http.ErrServerClosed {
					t.Errorf("Serve returned %v", err)
				}
			}()

			if st, err := handshake(addr, cbc); err == nil {
				t.Errorf("a CBC-only TLS 1.2 client got %s", tls.CipherSuiteName(st.CipherSuite))
			}
			aead := []uint16{tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256, tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256}
			for _, suite := range []uint16{tls.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384, tls.TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,
				tls.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256, tls.TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256} {
				aead = append(aead, suite)
				st, err := handshake(addr, &tls.Config{RootCAs: pool, MaxVersion: tls.VersionTLS12,
					CipherSuites: append(append([]uint16{}, cbcSuites...), suite)})
				if err != nil && (rsaKey == (suite == tls.TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384 || suite == tls.TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256)) {
					t.Errorf("TLS 1.2 with %s: %v", tls.CipherSuiteName(suite), err)
				}
				if err == nil && st.CipherSuite != suite {
					t.Errorf("TLS 1.2 offering CBC and %s got %s", tls.CipherSuiteName(suite), tls.CipherSuiteName(st.CipherSuite))
				}
			}
			st, err := handshake(addr, &tls.Config{RootCAs: pool, MaxVersion: tls.VersionTLS12, CipherSuites: aead})
			if err != nil || st.Version != tls.VersionTLS12 || st.DidResume {
				t.Errorf("TLS 1.2 AEAD client: %v %x", err, st.Version)
			}
			st, err = handshake(addr, &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS13})
			if err != nil || st.Version != tls.VersionTLS13 {
				t.Errorf("TLS 1.3 client: %v %x", err, st.Version)
			}

			// HTTP/2 over the real listener; a second connection does not
			// resume (no ticket was issued to resume with).
			cache := tls.NewLRUClientSessionCache(4)
			for i := range 2 {
				tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, ClientSessionCache: cache}, ForceAttemptHTTP2: true}
				res, err := (&http.Client{Transport: tr}).Get("https://" + addr + "/healthz")
				if err != nil {
					t.Fatal(err)
				}
				res.Body.Close()
				if res.StatusCode != http.StatusOK || res.ProtoMajor != 2 || res.TLS.NegotiatedProtocol != "h2" {
					t.Errorf("GET /healthz: %d over %s (%q)", res.StatusCode, res.Proto, res.TLS.NegotiatedProtocol)
				}
				if res.TLS.DidResume {
					t.Errorf("connection %d resumed a TLS session: tickets are off", i)
				}
				tr.CloseIdleConnections()
			}
		})
	}
}
