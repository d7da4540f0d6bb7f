"""Small helpers shared by the tensor, autograd and nn layers."""
