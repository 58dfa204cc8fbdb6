package urls

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"
)

// EndsInNumber reports whether a host's last label is a number (decimal, or
// hex with 0x): the URL standard then reads the host as IPv4 or refuses it.
func EndsInNumber(host string) bool {
	labels := strings.Split(host, ".")
	if len(labels) > 1 && labels[len(labels)-1] == "" {
		labels = labels[:len(labels)-1]
	}
	last := labels[len(labels)-1]
	if last == "" {
		return false
	}
	if strings.Trim(last, "0123456789") == "" {
		return true
	}
	if len(last) >= 2 && (last[:2] == "0x" || last[:2] == "0X") {
		return strings.Trim(last[2:], "0123456789abcdefABCDEF") == ""
	}
	return false
}

// ParseLooseIPv4 reads the IPv4 forms of inet_aton and the URL standard's
// IPv4 parser: one to four parts, each decimal, octal (leading 0) or hex
// (0x), the last filling the bytes that remain.
func ParseLooseIPv4(s string) (netip.Addr, error) {
	bad := fmt.Errorf("%q is not an IPv4 address", s)
	parts := strings.Split(s, ".")
	if len(parts) > 4 {
		return netip.Addr{}, bad
	}
	var nums []uint64
	for _, p := range parts {
		n, ok := parseIPv4Number(p)
		if !ok {
			return netip.Addr{}, bad
		}
		nums = append(nums, n)
	}
	var v uint64
	for i, n := range nums[:len(nums)-1] {
		if n > 255 {
			return netip.Addr{}, bad
		}
		v |= n << (8 * (3 - i))
	}
	last := nums[len(nums)-1]
	if last >= 1<<(8*(5-len(nums))) {
		return netip.Addr{}, bad
	}
	v |= last
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}), nil
}

func parseIPv4Number(p string) (uint64, bool) {
	base := 10
	switch {
	case p == "":
		return 0, false
	case len(p) >= 2 && (p[:2] == "0x" || p[:2] == "0X"):
		p, base = p[2:], 16
		if p == "" {
			return 0, true
		}
	case len(p) > 1 && p[0] == '0':
		p, base = p[1:], 8
	}
	if p[0] == '+' || p[0] == '-' {
		return 0, false
	}
	n, err := strconv.ParseUint(p, base, 64)
	return n, err == nil
}
