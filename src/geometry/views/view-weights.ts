// Per-dimension weights of the view descriptor distance (view-index.ts), fitted — not chosen by
// hand — on a training split of the image benchmark's photos: seeds 500,000 + … (the benchmark
// scores seeds 1,000 + …, which the fit never sees). Each weight is 1 / mean |photo − closest
// view of the true part| in that dimension (the L1 form of weighting by the inverse spread of the
// matching error), scaled to mean 1; two rounds. Refit with `FIT_WEIGHTS=1 npm run bench:image`
// when the descriptor changes, and paste the printed line here.
// Order: silhouette Zernike (orders 2–12) | contour Fourier (15) | edge Zernike (orders 2–8) | elongation, fill.
export const FITTED_VIEW_WEIGHTS: readonly number[] = [0.2206,0.4767,0.5508,0.5584,0.5373,0.4653,0.7693,0.8841,0.8597,0.6979,0.8008,0.9704,0.8423,1.135,1.171,1.486,1.122,1.077,0.8034,1.144,1.373,1.272,1.52,1.344,1.465,1.873,1.608,1.486,1.137,1.466,1.595,1.722,1.85,1.963,1.952,1.813,1.972,2.254,1.808,1.927,1.427,1.788,1.92,1.902,2.247,2.271,2.493,0.9893,0.5421,0.5619,0.7839,0.6748,0.9718,1.001,1.029,1.23,1.257,1.279,1.491,1.433,1.541,1.631,0.0875,0.1564,0.1195,0.2377,0.1058,0.1554,0.2916,0.1567,0.2052,0.4613,0.1247,0.1646,0.2318,0.4694,0.1836,0.2079,0.2729,0.7237,0.1538,0.1965,0.2516,0.3024,0.6785,0.3393,0.2886];
