package aws

import (
	"maps"
	"sync"
	"time"
)

// reservationLedger counts, per capacity reservation, the slots this provider took (its
// launches) and gave back (terminations) since the reservations were last described, so that
// launches between two Refreshes do not overfill a reservation. An instance takes its slot at
// most once and gives it back at most once, however many Deletes, garbage collections or
// clean-ups end it, and at the same time; and only a slot that was counted is given back:
// taken by this provider's launch, or held by an instance that ran when the reservations were
// described. Call reset before use; it is safe for concurrent use.
type reservationLedger struct {
	mu sync.Mutex
	// described is when the reservations' free counts were read (the last Refresh).
	described time.Time
	// used is, per reservation, slots taken minus slots given back since described.
	used map[string]int
	// taken are the instances this provider launched into a reservation since described.
	taken map[string]string
	// givenBack are the instances whose slot went back.
	givenBack map[string]bool
}

// reset starts counting afresh from free counts read at the given time.
func (l *reservationLedger) reset(described time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.described, l.used, l.taken, l.givenBack = described, map[string]int{}, map[string]string{}, map[string]bool{}
}

// take books instance's launch into reservation.
func (l *reservationLedger) take(instance, reservation string) {
	if reservation == "" {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, ok := l.taken[instance]; ok {
		return
	}
	l.taken[instance] = reservation
	l.used[reservation]++
}

// giveBack books the end of instance, which ran in reservation and launched at launched
// (zero when unknown). It reports whether a slot went back.
func (l *reservationLedger) giveBack(instance, reservation string, launched time.Time) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if r, ok := l.taken[instance]; ok {
		reservation = r
	}
	if reservation == "" || l.givenBack[instance] {
		return false
	}
	_, ours := l.taken[instance]
	ranWhenDescribed := !launched.IsZero() && launched.Before(l.described)
	if !ours && !ranWhenDescribed {
		return false // launched since, elsewhere or unseen (a lost reply): the free count never knew it
	}
	l.givenBack[instance] = true
	l.used[reservation]--
	return true
}

// usedSlots is, per reservation, the slots taken minus those given back.
func (l *reservationLedger) usedSlots() map[string]int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return maps.Clone(l.used)
}
