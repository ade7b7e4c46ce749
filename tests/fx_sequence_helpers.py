"""What the fx input tests share, with the compositor's trial: ``write_seq``, random frames
written as a numbered PNG sequence."""


def write_seq(folder, frames, name, first):
    import imageio.v3 as iio

    folder.mkdir(parents=True, exist_ok=True)
    for i, f in enumerate(frames):
        iio.imwrite(folder / (name % (first + i)), f)
