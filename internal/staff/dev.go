package staff

import (
	"context"
	"crypto/rand"
	"strings"

	"guichet/internal/account"
	"guichet/internal/codes"
	"guichet/internal/rules"
	"guichet/internal/store"
)

// DevPassword is the --dev staff members' password (README).
const DevPassword = "Guichet-Staff-2026!"

// devPasswordHash is DevPassword's hash at account.DefaultParams, made once:
// a first --dev start stores it rather than running argon2id (issue 34). A
// service on other parameters (tests choose cheap ones) hashes as before.
const devPasswordHash = "$argon2id$v=19$m=19456,t=2,p=1$hDGoLpJcUF9gbK7QYAXOvQ$iUXL5WYOMutZk7rRg1zuoDPU0WTtSAbTmnSN/ywLjvY"

// DevMember is a --dev staff member: fixed, public TOTP secret (README), so a
// person can add it to an authenticator app. Never outside --dev.
type DevMember struct {
	Email  string
	Name   string
	Role   Role
	Brands []string
	Secret string // base32
}

// DevMembers are the --dev seeds, one per role.
var DevMembers = []DevMember{
	{Email: "agent@console.example", Name: "Alex Agent", Role: RoleAgent, Brands: []string{"belair", "intact"}, Secret: "GUICHETAGENTDEVTOTPSECRETAAAAAAA"},
	{Email: "supervisor@console.example", Name: "Sam Supervisor", Role: RoleSupervisor, Secret: "GUICHETSUPERVISORDEVTOTPSECRETAA"},
	{Email: "admin@console.example", Name: "Ada Admin", Role: RoleAdmin, Secret: "GUICHETADMINDEVTOTPSECRETAAAAAAA"},
}

// SeedDev creates the --dev staff members, set up with DevPassword and
// their fixed secrets; members already there are left as they are. It
// returns how many it created.
func (s *Service) SeedDev(ctx context.Context) (int, error) {
	n := 0
	for _, d := range DevMembers {
		if _, err := s.byEmail(ctx, s.DB, d.Email); err == nil {
			continue
		}
		secret, err := DecodeSecret(d.Secret)
		if err != nil {
			return n, err
		}
		password, err := rules.Password(DevPassword, d.Email)
		if err != nil {
			return n, err
		}
		hash := devPasswordHash
		if s.Hasher.Params() != account.DefaultParams {
			if hash, err = s.Hasher.Hash(ctx, password); err != nil {
				return n, err
			}
		}
		id, err := codes.RandomID(rand.Reader)
		if err != nil {
			return n, err
		}
		sealed, err := s.keys.seal(id, secret)
		if err != nil {
			return n, err
		}
		now := s.Now().UnixMilli()
		err = s.DB.InTx(ctx, func(tx *store.Tx) error {
			_, err := tx.Exec(ctx, `INSERT INTO staff_accounts (id, email, name, role, brands, password_hash, totp_secret, enrolled_at, created_at, updated_at)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (email) DO NOTHING`,
				id, d.Email, d.Name, string(d.Role), strings.Join(d.Brands, ","), hash, sealed, now, now, now)
			return err
		})
		if err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}
