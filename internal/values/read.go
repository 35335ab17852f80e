package values

// read checks every block of the chain against the bounds, each alone and then all
// together, before it decodes any: a chain over a bound costs a scan of its JSON, never
// its decoding.
func read(layers []layer) ([]placed, error) {
	var chain []placed
	var sum chainSum
	for _, l := range layers {
		for _, p := range l.policies {
			sizes, err := p.measure()
			if err != nil {
				return nil, err
			}
			sum.add(p.source, sizes)
			chain = append(chain, placed{policy: p, level: l.level})
		}
	}
	if err := sum.check(); err != nil {
		return nil, err
	}
	for i := range chain {
		d, err := chain[i].decode()
		if err != nil {
			return nil, err
		}
		chain[i].decoded = d
	}
	return chain, nil
}
