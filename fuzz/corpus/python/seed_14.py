def relu(x)
    return x
