package run

// CalibrationBins is how many equal-width bins of [0, 1] the reliability
// table and the expected calibration error of a run and of an agreement
// use (stats.Calibrate).
const CalibrationBins = 10
