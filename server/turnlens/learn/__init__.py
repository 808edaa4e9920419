"""The learned classifier: features, a linear model scored in pure Python, training and metrics."""
