"""The paper's worked example: how sure can a court be of a cocaine-purity classifier?

Table 1 of Tötsch & Hoffmann (2021), classifier 7a of Table S1: 26 high-purity samples all
recognised (TP 26, FN 0), 8 low-purity samples of which 6 recognised (TN 6, FP 2). The point
estimates say TPR 100 % and TNR 75 %; the posterior says how far from that the truth may be.

Run: ``.venv/bin/python examples/cocaine_purity.py``
"""

import bayescm as bcm

cm = bcm.ConfusionMatrix.from_counts(tp=26, fn=0, tn=6, fp=2, labels=("high purity", "low purity"))
idata = bcm.fit(cm, random_seed=1)  # Laplace priors, 4 x 5,000 exact draws

table = bcm.summary(idata)
table["ess_mean"] = table["ess_mean"].round().astype(int)
print(f"Cocaine purity classifier, {cm.n} test samples, Laplace priors, 95 % HDI")
print(table.to_string(float_format=lambda v: f"{v:.3f}"))

tpr = bcm.summary(idata, var_names="tpr").loc["tpr"]
tnr = bcm.summary(idata, var_names="tnr").loc["tnr"]
print()
print(f"TPR: reported {tpr.observed:.0%}, 95 % HDI [{tpr.hdi_lower:.1%}, {tpr.hdi_upper:.1%}]")
print(f"TNR: reported {tnr.observed:.0%}, 95 % HDI [{tnr.hdi_lower:.1%}, {tnr.hdi_upper:.1%}]")
print(f"P(TNR < 50 %), more wrongful convictions than correct acquittals: "
      f"{bcm.probability(idata, 'tnr', upper=0.5):.1%}")
print(bcm.informedness(idata, rope=0.05).round(3).to_string())
