"""wrong directory: the module is fused_rope"""
