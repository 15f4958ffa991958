"""Learning from the annotated gold: gold → span labels, cross-validation folds, training and calibration."""
