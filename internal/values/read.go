package values

// read checks every block of the chain against the bounds, each alone and then all
// together, before it decodes any: a chain over a bound costs a scan of its JSON, never
// its decoding. Blocks decoded by an earlier computation come from the cache, measured
// and decoded already. A chain over a sum bound is a *SumLimitError written for readers
// of namespace, the Gateway's or the route's whose values these are.
func (in Inputs) read(layers []layer, namespace string) ([]placed, error) {
	var chain []placed
	var reads [][2]readHalf // by the place in chain, then in halves
	var sum chainSum
	for _, l := range layers {
		for _, p := range l.policies {
			var halvesRead [2]readHalf
			for i, half := range halves {
				h, err := p.measureHalf(half)
				if err != nil {
					return nil, err
				}
				halvesRead[i] = h
			}
			sum.add(l.level, p.source, [2]blockSize{halvesRead[0].size, halvesRead[1].size})
			chain = append(chain, placed{policy: p, level: l.level})
			reads = append(reads, halvesRead)
		}
	}
	if err := sum.check(); err != nil {
		err.namespace, err.controllerNamespace = namespace, in.ControllerNamespace
		return nil, err
	}
	for i := range chain {
		for j, half := range halves {
			if err := chain[i].decodeInto(half, &reads[i][j]); err != nil {
				return nil, err
			}
		}
		chain[i].decoded = decodedPolicy{defaults: reads[i][0].block, overrides: reads[i][1].block}
	}
	return chain, nil
}

// measureHalf finds half of p in the cache, or checks it against the bounds of a
// block. The result has no block yet when the half is not in the cache.
func (p policy) measureHalf(half Half) (readHalf, error) {
	raw := p.block(half)
	if raw == nil {
		return readHalf{}, nil
	}
	key := p.key(half, raw.Raw)
	if h, ok := decodedBlocks.get(key); ok {
		return h, nil
	}
	size, err := p.checkLimits(half)
	if err != nil {
		return readHalf{}, err
	}
	return readHalf{key: key, size: size}, nil
}

// decodeInto decodes half of p into h, unless h came from the cache, and keeps it.
func (p policy) decodeInto(half Half, h *readHalf) error {
	if h.block != nil || p.block(half) == nil {
		return nil
	}
	b, err := p.decodeHalf(half)
	if err != nil {
		return err
	}
	h.block = b
	if b != nil {
		decodedBlocks.put(*h)
	}
	return nil
}
