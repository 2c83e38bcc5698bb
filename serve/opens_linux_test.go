package serve

import (
	"errors"
	"syscall"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
)

// watchOpens watches dir (inotify) for any file in it being opened or
// read, from now on, by any process, this test's server too; the
// returned function says which names were, since. The kernel queues the
// event as the file is opened, so reading the queue after the requests
// were answered misses none.
func watchOpens(t *testing.T, dir string) func() []string {
	t.Helper()
	fd, err := syscall.InotifyInit1(syscall.IN_NONBLOCK | syscall.IN_CLOEXEC)
	require.NoError(t, err)
	t.Cleanup(func() { _ = syscall.Close(fd) })
	_, err = syscall.InotifyAddWatch(fd, dir, syscall.IN_OPEN|syscall.IN_ACCESS)
	require.NoError(t, err)
	return func() []string {
		var names []string
		buf := make([]byte, 64<<10)
		for {
			n, err := syscall.Read(fd, buf)
			if errors.Is(err, syscall.EAGAIN) {
				return names
			}
			require.NoError(t, err)
			for off := 0; off+syscall.SizeofInotifyEvent <= n; {
				ev := (*syscall.InotifyEvent)(unsafe.Pointer(&buf[off]))
				name := buf[off+syscall.SizeofInotifyEvent : off+syscall.SizeofInotifyEvent+int(ev.Len)]
				names = append(names, string(trimNUL(name)))
				off += syscall.SizeofInotifyEvent + int(ev.Len)
			}
		}
	}
}

func trimNUL(b []byte) []byte {
	for i, c := range b {
		if c == 0 {
			return b[:i]
		}
	}
	return b
}
