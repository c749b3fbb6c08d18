// Copyright 2017 The Go Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

// Package argon2id is Argon2id (RFC 9106, version 0x13) as
// golang.org/x/crypto/argon2 computes it, with one change for a server that
// hashes passwords all day: the memory of a computation (19 MiB at
// design.md's parameters) is reused from one call to the next instead of
// being allocated, zeroed and collected each time. With x/crypto, every
// sign-in allocated 19 MiB, which ran the garbage collector about once per
// hash and took CPU from the hashes and the requests around them.
//
// The block function (blamka_*.go, blamka_amd64.s with SSE4.1 on amd64) and
// blake2b.go are x/crypto's files as they are (v0.58.0); only this file
// differs: reused memory, and the first pass overwrites blocks instead of
// XOR-ing them into zeroed memory (the same result, RFC 9106 section 3.4).
// IDKey's answers are checked against x/crypto's and the published test
// vectors.
package argon2id

import (
	"encoding/binary"
	"sync"

	"golang.org/x/crypto/blake2b"
)

// Version is the Argon2 version implemented (0x13).
const Version = 0x13

const (
	argon2d = iota
	argon2i
	argon2idMode
)

const (
	blockLength = 128
	syncPoints  = 4
)

type block [blockLength]uint64

// memory holds spare block arrays: one per computation running at once is
// kept between calls; the garbage collector empties the pool when the
// process is idle long enough (two collections), so an idle server gives the
// memory back.
var memory sync.Pool

func blocks(n uint32) *[]block {
	if b, ok := memory.Get().(*[]block); ok && cap(*b) >= int(n) {
		*b = (*b)[:n]
		return b
	}
	b := make([]block, n)
	return &b
}

// IDKey derives a key from the password, salt, and cost parameters using
// Argon2id, exactly as golang.org/x/crypto/argon2.IDKey does: time passes
// over memory KiB with threads lanes, keyLen bytes out. It panics when time
// or threads is below 1, as x/crypto does.
func IDKey(password, salt []byte, time, memoryKiB uint32, threads uint8, keyLen uint32) []byte {
	if time < 1 {
		panic("argon2id: number of rounds too small")
	}
	if threads < 1 {
		panic("argon2id: parallelism degree too low")
	}
	h0 := initHash(password, salt, nil, nil, time, memoryKiB, uint32(threads), keyLen, argon2idMode)

	memoryKiB = memoryKiB / (syncPoints * uint32(threads)) * (syncPoints * uint32(threads))
	if memoryKiB < 2*syncPoints*uint32(threads) {
		memoryKiB = 2 * syncPoints * uint32(threads)
	}
	bp := blocks(memoryKiB)
	defer memory.Put(bp)
	B := *bp
	initBlocks(&h0, B, uint32(threads))
	processBlocks(B, time, memoryKiB, uint32(threads), argon2idMode)
	return extractKey(B, memoryKiB, uint32(threads), keyLen)
}

func initHash(password, salt, key, data []byte, time, memory, threads, keyLen uint32, mode int) [blake2b.Size + 8]byte {
	var (
		h0     [blake2b.Size + 8]byte
		params [24]byte
		tmp    [4]byte
	)

	b2, _ := blake2b.New512(nil)
	binary.LittleEndian.PutUint32(params[0:4], threads)
	binary.LittleEndian.PutUint32(params[4:8], keyLen)
	binary.LittleEndian.PutUint32(params[8:12], memory)
	binary.LittleEndian.PutUint32(params[12:16], time)
	binary.LittleEndian.PutUint32(params[16:20], uint32(Version))
	binary.LittleEndian.PutUint32(params[20:24], uint32(mode))
	b2.Write(params[:])
	binary.LittleEndian.PutUint32(tmp[:], uint32(len(password)))
	b2.Write(tmp[:])
	b2.Write(password)
	binary.LittleEndian.PutUint32(tmp[:], uint32(len(salt)))
	b2.Write(tmp[:])
	b2.Write(salt)
	binary.LittleEndian.PutUint32(tmp[:], uint32(len(key)))
	b2.Write(tmp[:])
	b2.Write(key)
	binary.LittleEndian.PutUint32(tmp[:], uint32(len(data)))
	b2.Write(tmp[:])
	b2.Write(data)
	b2.Sum(h0[:0])
	return h0
}

// initBlocks writes the first two blocks of every lane (all 128 words of
// each, so reused memory needs no clearing).
func initBlocks(h0 *[blake2b.Size + 8]byte, B []block, threads uint32) {
	var block0 [1024]byte
	memory := uint32(len(B))
	for lane := uint32(0); lane < threads; lane++ {
		j := lane * (memory / threads)
		binary.LittleEndian.PutUint32(h0[blake2b.Size+4:], lane)

		binary.LittleEndian.PutUint32(h0[blake2b.Size:], 0)
		blake2bHash(block0[:], h0[:])
		for i := range B[j+0] {
			B[j+0][i] = binary.LittleEndian.Uint64(block0[i*8:])
		}

		binary.LittleEndian.PutUint32(h0[blake2b.Size:], 1)
		blake2bHash(block0[:], h0[:])
		for i := range B[j+1] {
			B[j+1][i] = binary.LittleEndian.Uint64(block0[i*8:])
		}
	}
}

func processBlocks(B []block, time, memory, threads uint32, mode int) {
	lanes := memory / threads
	segments := lanes / syncPoints

	processSegment := func(n, slice, lane uint32, wg *sync.WaitGroup) {
		var addresses, in, zero block
		if mode == argon2i || (mode == argon2idMode && n == 0 && slice < syncPoints/2) {
			in[0] = uint64(n)
			in[1] = uint64(lane)
			in[2] = uint64(slice)
			in[3] = uint64(memory)
			in[4] = uint64(time)
			in[5] = uint64(mode)
		}

		index := uint32(0)
		if n == 0 && slice == 0 {
			index = 2 // we have already generated the first two blocks
			if mode == argon2i || mode == argon2idMode {
				in[6]++
				processBlock(&addresses, &in, &zero)
				processBlock(&addresses, &addresses, &zero)
			}
		}

		offset := lane*lanes + slice*segments + index
		var random uint64
		for index < segments {
			prev := offset - 1
			if index == 0 && slice == 0 {
				prev += lanes // last block in lane
			}
			if mode == argon2i || (mode == argon2idMode && n == 0 && slice < syncPoints/2) {
				if index%blockLength == 0 {
					in[6]++
					processBlock(&addresses, &in, &zero)
					processBlock(&addresses, &addresses, &zero)
				}
				random = addresses[index%blockLength]
			} else {
				random = B[prev][0]
			}
			newOffset := indexAlpha(random, lanes, segments, threads, n, slice, lane, index)
			if n == 0 {
				// The first pass writes each block; x/crypto XORs into
				// freshly zeroed memory, which gives the same block.
				processBlock(&B[offset], &B[prev], &B[newOffset])
			} else {
				processBlockXOR(&B[offset], &B[prev], &B[newOffset])
			}
			index, offset = index+1, offset+1
		}
		wg.Done()
	}

	for n := uint32(0); n < time; n++ {
		for slice := uint32(0); slice < syncPoints; slice++ {
			var wg sync.WaitGroup
			if threads == 1 {
				// One lane: no goroutine to start and wait for.
				wg.Add(1)
				processSegment(n, slice, 0, &wg)
				continue
			}
			for lane := uint32(0); lane < threads; lane++ {
				wg.Add(1)
				go processSegment(n, slice, lane, &wg)
			}
			wg.Wait()
		}
	}
}

func extractKey(B []block, memory, threads, keyLen uint32) []byte {
	lanes := memory / threads
	for lane := uint32(0); lane < threads-1; lane++ {
		for i, v := range B[(lane*lanes)+lanes-1] {
			B[memory-1][i] ^= v
		}
	}

	var block [1024]byte
	for i, v := range B[memory-1] {
		binary.LittleEndian.PutUint64(block[i*8:], v)
	}
	key := make([]byte, keyLen)
	blake2bHash(key, block[:])
	return key
}

func indexAlpha(rand uint64, lanes, segments, threads, n, slice, lane, index uint32) uint32 {
	refLane := uint32(rand>>32) % threads
	if n == 0 && slice == 0 {
		refLane = lane
	}
	m, s := 3*segments, ((slice+1)%syncPoints)*segments
	if lane == refLane {
		m += index
	}
	if n == 0 {
		m, s = slice*segments, 0
		if slice == 0 || lane == refLane {
			m += index
		}
	}
	if index == 0 || lane == refLane {
		m--
	}
	return phi(rand, uint64(m), uint64(s), refLane, lanes)
}

func phi(rand, m, s uint64, lane, lanes uint32) uint32 {
	p := rand & 0xFFFFFFFF
	p = (p * p) >> 32
	p = (p * m) >> 32
	return lane*lanes + uint32((s+m-(p+1))%uint64(lanes))
}
