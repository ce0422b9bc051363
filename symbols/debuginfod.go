package symbols

import (
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
)

// debuginfod fetches /buildid/ID/KIND into the cache and returns the path.
// The downloaded file is still verified by id by the caller, so a wrong or
// malicious server cannot make us use a different build.
func (l *locator) debuginfod(id []byte, kind string) (string, error) {
	if l.o.debuginfodURL == "" {
		return "", fmt.Errorf("symbols: no debuginfod server: %w", ErrImageNotFound)
	}
	h := hex.EncodeToString(id)
	dir := l.o.cacheDir
	if dir == "" {
		c, err := os.UserCacheDir()
		if err != nil {
			return "", fmt.Errorf("symbols: debuginfod cache: %w", err)
		}
		dir = filepath.Join(c, "gotracy", "debuginfod")
	}
	dst := filepath.Join(dir, h, kind)
	if _, err := os.Stat(dst); err == nil {
		return dst, nil
	}
	client := l.o.httpClient
	if client == nil {
		client = http.DefaultClient
	}
	url := l.o.debuginfodURL + "/buildid/" + h + "/" + kind
	resp, err := client.Get(url)
	if err != nil {
		return "", fmt.Errorf("symbols: debuginfod %s: %w", url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("symbols: debuginfod %s: %s: %w", url, resp.Status, ErrImageNotFound)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return "", fmt.Errorf("symbols: debuginfod cache: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(dst), kind+".*")
	if err != nil {
		return "", fmt.Errorf("symbols: debuginfod cache: %w", err)
	}
	_, err = io.Copy(tmp, io.LimitReader(resp.Body, 4<<30))
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), dst)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return "", fmt.Errorf("symbols: debuginfod %s: %w", url, err)
	}
	return dst, nil
}
