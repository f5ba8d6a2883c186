// Per-dimension weights of the view descriptor distance (view-index.ts), fitted — not chosen by
// hand — on a training split of the image benchmark's photos: seeds 500,000 + … (the benchmark
// scores seeds 1,000 + …, which the fit never sees). Each weight is 1 / mean |photo − closest
// view of the true part| in that dimension (the L1 form of weighting by the inverse spread of the
// matching error), scaled to mean 1; three rounds from equal weights. Refit with `FIT_WEIGHTS=1 npm run bench:image`
// when the descriptor changes, and paste the printed line here. Stored view signatures hold
// weighted values, so new weights make every model's views stale (reprocessed at the next start).
// Order: silhouette Zernike (orders 2–12) | contour Fourier (15) | edge Zernike (orders 2–8) | elongation, fill.
export const FITTED_VIEW_WEIGHTS: readonly number[] = [
  0.2682, 0.5135, 0.8119, 0.9936, 0.4338, 0.563, 0.8133, 1.161, 1.097, 1.306, 0.6679, 0.7651, 0.9726, 1.162, 1.286, 1.684, 1.487, 1.771,
  0.7254, 1.079, 1.08, 1.326, 1.474, 1.526, 1.87, 1.913, 1.984, 2.353, 0.9492, 1.383, 1.361, 1.46, 1.701, 1.878, 1.987, 2.213, 2.311, 2.448,
  2.235, 2.803, 1.103, 1.541, 1.686, 1.725, 1.883, 2.308, 2.399, 0.96, 0.3935, 0.6773, 0.5504, 0.8126, 0.6833, 1.095, 0.7686, 1.261, 1.034,
  1.338, 1.059, 1.379, 1.255, 1.359, 0.05088, 0.08391, 0.08292, 0.1363, 0.06117, 0.09506, 0.1511, 0.09126, 0.1116, 0.2347, 0.0783, 0.1128,
  0.1287, 0.2625, 0.1159, 0.1172, 0.1476, 0.3797, 0.1043, 0.1264, 0.1411, 0.168, 0.3801, 0.2631, 0.2904,
];
