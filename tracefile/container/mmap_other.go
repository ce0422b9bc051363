//go:build !unix

package container

import (
	"errors"
	"os"
)

func mmapFile(*os.File, int64) ([]byte, func() error, error) {
	return nil, nil, errors.ErrUnsupported
}
