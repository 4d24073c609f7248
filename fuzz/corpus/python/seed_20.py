def pick(mode):
    match mode:
        case "fast":
            return 1
        case _:
            return 0
