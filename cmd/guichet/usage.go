package main

import (
	"flag"
	"fmt"
	"io"
)

// commands is what `guichet help` lists (README.md "Commands" explains each).
const commands = `Usage: guichet [command] [flags] [arguments]
(flags may also come after or between the arguments; -- ends them)

Commands:
  serve                            serve the portal (the default command)
  migrate                          apply the database migrations and exit
  migrate --status                 list the migrations applied and pending; apply none
  check-config                     validate the brand files and exit
  outbox list                      list queued and recent notifications
  outbox retry ID                  queue a failed or abandoned notification again
  maintenance on [--brand B] [--until RFC3339]
                                   API answers 503, pages show the maintenance page
  maintenance off [--brand B]      end maintenance
  maintenance status               tell what is in maintenance
  backup FILE                      copy the SQLite database to FILE while serving
  import-policies [--dry-run] FILE.csv
                                   load the insurer's policy records (one transaction)
  tokens issue --brand B --policy NUMBER --email EMAIL --source edoc|BA|mrkt [--send]
               [--language en|fr] [--start RFC3339] [--days N]
                                   issue an emailed magic-link invitation; prints the link
  tokens issue --csv FILE [--send] a campaign file (brand,policy_number,email,source), one transaction
  staff add EMAIL --name NAME --role agent|supervisor|admin [--brands belair,intact|all]
                                   add a console staff member; prints the one-time set-up link (24 h)
  staff disable EMAIL              disable a staff member (their sessions end at once)
  staff list                       list the staff members
  clients add --brand B --name NAME --type public|confidential --redirect-uri URI...
              [--third-party] [--backchannel-logout-uri URI]
                                   register an OpenID Connect client; prints its id and secret (once)
  clients list [--brand B]         list the OpenID Connect clients
  clients disable CLIENT_ID        disable a client
  oidc rotate-keys [--brand B]     new signing keys now (the old ones stay published a week)
  version                          print the version
  help                             print this help

Flags (each also read from the environment variable in parentheses):
`

// usage prints the commands and the flags.
func usage(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprint(w, commands)
	fs.SetOutput(w)
	fs.PrintDefaults()
	fs.SetOutput(io.Discard)
}
