package cobrowse

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"guichet/internal/chat/chatapi"
)

const mask = "••••••"

// The rrweb events a recorder could send: which ones carry a value.
func TestPrivacyViolation(t *testing.T) {
	cases := []struct {
		name, event, want string
		bad               bool
	}{
		{"not an event", `"xxxx"`, "", false},
		{"no type", `{"n":5}`, "", false},
		{"another type", `{"type":5,"data":{"tag":"x","payload":{"value":"v"}}}`, "", false},
		{"full snapshot, masked", `{"type":2,"data":{"node":{"type":0,"childNodes":[{"type":2,"tagName":"input","attributes":{"type":"hidden","value":"` + mask + `"},"childNodes":[]}]}}}`, "", false},
		{"full snapshot, empty and null", `{"type":2,"data":{"node":{"childNodes":[{"attributes":{"value":""}},{"attributes":{"value":null}}]}}}`, "", false},
		{"full snapshot, a hidden password", `{"type":2,"data":{"node":{"childNodes":[{"childNodes":[{"tagName":"input","attributes":{"name":"password","value":"Hunter2!"}}]}]}}}`, RefusedValue, false},
		{"full snapshot, a number", `{"type":2,"data":{"node":{"attributes":{"value":1234}}}}`, RefusedValue, false},
		{"full snapshot, a float type", `{"type":2.0,"data":{"node":{"attributes":{"value":"x"}}}}`, RefusedValue, false},
		{"mutation adds a field with a value", `{"type":3,"data":{"source":0,"texts":[],"removes":[],"attributes":[],"adds":[{"parentId":4,"node":{"tagName":"form","childNodes":[{"tagName":"input","attributes":{"value":"T1cket"}}]}}]}}`, RefusedValue, false},
		{"mutation adds masked", `{"type":3,"data":{"source":0,"adds":[{"node":{"tagName":"input","attributes":{"value":"` + mask + `"}}}],"attributes":[{"id":3,"attributes":{"value":"` + mask + `","class":"a"}}]}}`, "", false},
		{"attribute change sets a value", `{"type":3,"data":{"source":0,"adds":[],"attributes":[{"id":3,"attributes":{"value":"BEL-1000"}}]}}`, RefusedValue, false},
		{"style attribute change", `{"type":3,"data":{"source":0,"attributes":[{"id":3,"attributes":{"style":{"color":["red",""]}}}]}}`, "", false},
		{"input typed", `{"type":3,"data":{"source":5,"text":"H2X 1Y4","isChecked":false,"id":9}}`, RefusedInput, false},
		{"input masked", `{"type":3,"data":{"source":5,"text":"` + mask + `","isChecked":false,"id":9}}`, "", false},
		{"input cleared", `{"type":3,"data":{"source":5,"text":"","isChecked":true,"id":9}}`, "", false},
		{"mouse move", `{"type":3,"data":{"source":1,"positions":[{"x":1,"y":2,"id":3,"timeOffset":0}]}}`, "", false},
		{"meta, a path", `{"type":4,"data":{"href":"http://belair.test/my-account","width":1,"height":1}}`, "", false},
		{"meta, a token", `{"type":4,"data":{"href":"http://belair.test/registration/link?token=abc","width":1}}`, RefusedAddress, false},
		{"meta, a fragment", `{"type":4,"data":{"href":"http://belair.test/setup#tok"}}`, RefusedAddress, false},
		{"malformed node", `{"type":2,"data":{"node":{"attributes":"value"}}}`, "", true},
		{"malformed data", `{"type":3,"data":[1]}`, "", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := PrivacyViolation([]byte(c.event))
			if got != c.want || (err != nil) != c.bad {
				t.Fatalf("PrivacyViolation(%s) = %q, %v; want %q, bad %v", c.event, got, err, c.want, c.bad)
			}
		})
	}
}

// A visitor frame carrying a value is refused, stored nowhere, shown to no
// viewer, and counted; the masked frame after it goes through.
func TestRefusesPrivateValues(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		e.svc.Metrics = NewMetrics(prometheus.NewRegistry())
		e.mu.Lock()
		e.record["belair"] = true
		e.mu.Unlock()
		p := e.addStaff("a1", "belair")
		v, _, id := e.activeCode(p)
		vs, view := e.watched(v, p, id)
		frames := []struct{ data, reason string }{
			{`{"type":2,"data":{"node":{"childNodes":[{"tagName":"input","attributes":{"type":"hidden","name":"password","value":"Hunter2-Secret!"}}]}}}`, RefusedValue},
			{`{"type":3,"data":{"source":0,"adds":[{"parentId":1,"node":{"tagName":"input","attributes":{"name":"ticket","value":"T1cket-XYZ"}}}]}}`, RefusedValue},
			{`{"type":3,"data":{"source":0,"attributes":[{"id":7,"attributes":{"value":"BEL-1000"}}]}}`, RefusedValue},
			{`{"type":3,"data":{"source":5,"text":"H2X-1Y4","isChecked":false,"id":9}}`, RefusedInput},
			{`{"type":4,"data":{"href":"http://belair.test/registration/link?token=TOKEN-123","width":1,"height":1}}`, RefusedAddress},
		}
		before := e.Count(t, "SELECT COUNT(*) FROM cobrowse_events WHERE session_id = ?", id)
		for i, f := range frames {
			vs.SendRaw([]byte(`{"type":"event","data":` + f.data + `}`))
			if got := vs.Next("error"); got["errorCode"] != codeOf(ErrPrivateValue) {
				t.Fatalf("frame %d: %v", i, got)
			}
			if i == 3 {
				// A good frame between keeps the socket (five bad in a row close it).
				vs.SendRaw([]byte(`{"type":"event","data":{"type":3,"data":{"source":5,"text":"` + mask + `","id":9}}}`))
				if got := view.Next("event"); !strings.Contains(string(mustJSON(t, got)), mask) {
					t.Fatalf("masked input: %v", got)
				}
			}
		}
		if n := e.Count(t, "SELECT COUNT(*) FROM cobrowse_events WHERE session_id = ?", id); n != before+1 {
			t.Fatalf("%d events stored, want %d (only the masked one)", n, before+1)
		}
		for _, secret := range []string{"Hunter2-Secret!", "T1cket-XYZ", "BEL-1000", "H2X-1Y4", "TOKEN-123"} {
			if n := e.Count(t, "SELECT COUNT(*) FROM cobrowse_events WHERE data LIKE ?", "%"+secret+"%"); n != 0 {
				t.Fatalf("%s stored", secret)
			}
		}
		want := map[string]float64{RefusedValue: 3, RefusedInput: 1, RefusedAddress: 1}
		for reason, n := range want {
			if got := e.svc.Metrics.Refused(reason); got != n {
				t.Fatalf("refused %s: %v, want %v", reason, got, n)
			}
		}
		// The service refuses it too, whatever the way in; an agent's pointer is not the visitor's page.
		if _, err := e.svc.AppendEvent(context.Background(), id, SenderVisitor, []byte(frames[0].data)); err != ErrPrivateValue {
			t.Fatalf("AppendEvent: %v", err)
		}
		if _, err := e.svc.AppendEvent(context.Background(), id, SenderVisitor, []byte(`{"type":2,"data":{"node":{"attributes":"x"}}}`)); err != ErrBadFrame {
			t.Fatalf("malformed: %v", err)
		}
	})
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The consent answers from the session's brand's host only.
func TestConsentBrand(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		p := e.addStaff("a1", "scotia", "belair")
		convID, chatSecret := e.conversation("scotia", p)
		id := e.agent(p).want("POST", "/console/chat/"+convID+"/cobrowse", "", 201, "")["id"].(string)
		elsewhere := e.visitor("belair")
		elsewhere.cookies[chatapi.DevCookieName] = chatSecret
		elsewhere.want("POST", "/api/v1/cobrowse/sessions/"+id+"/consent", `{"accept":true}`, 403, codeOf(ErrWrongBrand))
		if s := e.session(id); s.Status != StatusPending || s.ConsentAt != 0 || elsewhere.cookies[DevCookieName] != "" {
			t.Fatalf("after a refused consent: %+v", s)
		}
		v := e.visitor("scotia")
		v.cookies[chatapi.DevCookieName] = chatSecret
		if out := v.want("POST", "/api/v1/cobrowse/sessions/"+id+"/consent", `{"accept":true}`, 200, ""); out["status"] != StatusActive {
			t.Fatalf("consent: %v", out)
		}
	})
}
