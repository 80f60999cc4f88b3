package interp

// The interpreter's tolerances. Pool units, allocations, positions and
// tokens are float64 sums of fractional amounts (blocks of 0.1, chunks of a
// budget, a prefix cached in parts), so they carry rounding error; an
// amount this close to a bound is taken to be at the bound.
const (
	// unitTol is how close two amounts of units or tokens must be to count
	// as equal: a pool's used units against its cap, an eviction's excess,
	// a hold's position against its allocation, a run's tokens left.
	unitTol = 1e-9
	// blockTol is how close a number of blocks must be to a whole number
	// to be that number when a pool rounds units to its blocks.
	blockTol = 1e-9
)
